package adapters_test

import (
	"fmt"

	"github.com/driplab/drip/adapters"
)

// Decode an OpenAI-style server-sent event stream into frames. A decoder
// is pushed the bytes as they are read, in whatever pieces the network
// gives; a frame split across two reads comes out of the read that ends
// it, and Close says whether the stream ended inside one.
func ExampleDecoder() {
	reads := []string{
		"data: {\"choices\":[{\"delta\":{\"role\":\"assistant\",\"content\":\"\"}}]}\n\n: ping\n\n",
		"data: {\"choices\":[{\"delta\":{\"content\":\"Hel",
		"lo\"}}]}\n\ndata: {\"choices\":[{\"delta\":{\"content\":\" world\"}}]}\n\ndata: [DONE]\n\n",
	}
	dec := adapters.Lookup("openai-chat").NewDecoder(adapters.DefaultFrameLimit)
	var frames []adapters.Frame
	for i, p := range reads {
		var err error
		n := len(frames)
		if frames, err = dec.Feed(frames, []byte(p)); err != nil {
			panic(err)
		}
		for _, f := range frames[n:] {
			fmt.Printf("read %d: %s %q\n", i, f.Kind, f.Text)
		}
	}
	frames, err := dec.Close(frames)
	fmt.Println(len(frames), "frames, close:", err)
	// Output:
	// read 0: role ""
	// read 0: ping ""
	// read 2: content "Hello"
	// read 2: content " world"
	// read 2: end ""
	// 5 frames, close: <nil>
}
