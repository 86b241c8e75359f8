package adapters_test

import "testing"

func BenchmarkOpenAICompletionsDecode(b *testing.B) { benchFormat(b, "openai-completions") }
