package adapters

import "testing"

func FuzzTGI(f *testing.F) {
	fuzzDecoder(f, func() Decoder { return NewTGIDecoder(0) }, testdataFile(f, "tgi.sse"), testdataFile(f, "tgi_error.sse"))
}
