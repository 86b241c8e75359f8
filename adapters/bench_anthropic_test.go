package adapters_test

import "testing"

func BenchmarkAnthropicDecode(b *testing.B) { benchFormat(b, "anthropic") }
