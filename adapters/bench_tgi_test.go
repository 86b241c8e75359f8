package adapters_test

import "testing"

func BenchmarkTGIDecode(b *testing.B) { benchFormat(b, "tgi") }
