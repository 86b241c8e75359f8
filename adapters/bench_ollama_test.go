package adapters_test

import "testing"

func BenchmarkOllamaChatDecode(b *testing.B) { benchFormat(b, "ollama-chat") }

func BenchmarkOllamaGenerateDecode(b *testing.B) { benchFormat(b, "ollama-generate") }
