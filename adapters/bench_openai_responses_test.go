package adapters_test

import "testing"

func BenchmarkOpenAIResponsesDecode(b *testing.B) { benchFormat(b, "openai-responses") }
