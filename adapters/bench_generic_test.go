package adapters_test

import "testing"

func BenchmarkGenericSSEDecode(b *testing.B) { benchFormat(b, "sse") }

func BenchmarkGenericNDJSONDecode(b *testing.B) { benchFormat(b, "ndjson") }

func BenchmarkRawDecode(b *testing.B) { benchFormat(b, "raw") }
