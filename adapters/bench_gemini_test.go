package adapters_test

import "testing"

func BenchmarkGeminiDecode(b *testing.B) { benchFormat(b, "gemini") }
