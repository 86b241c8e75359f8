// Package adapters turns the bytes of a streamed LLM response into
// classified frames: one decoder per wire format (server-sent events,
// NDJSON, AWS event streams, raw reads).
//
// A Format is one API's protocol: how to ask for a stream (Body, Auth, its
// endpoint Path) and how to read it (NewDecoder). Lookup finds one by name
// ("openai-chat", "anthropic", "gemini", "ollama-chat", "tgi", …), Resolve
// also takes "auto", and Sniff, ForPath and ForContentType guess one from
// a response. A Decoder is pushed the body's bytes in whatever pieces
// they arrive (Feed) and returns the frames each piece completed; Close
// says whether the stream ended inside a frame. Each Frame has a Kind
// (content, role, ping, usage, meta, end, error; an event is not a token)
// and, for content, a Channel (text, reasoning, tool).
//
// Decoders are pure: they never read a clock and never do I/O, so the same
// code decodes live HTTP, record files and fuzz input. The probe stamps
// every frame with the time of the read that completed it.
package adapters
