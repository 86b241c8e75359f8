package adapters_test

import "testing"

func BenchmarkBedrockConverseDecode(b *testing.B) { benchFormat(b, "bedrock-converse") }

func BenchmarkBedrockInvokeDecode(b *testing.B) { benchFormat(b, "bedrock-invoke") }
