package record_test

import (
	"bytes"
	"fmt"
	"strings"

	"github.com/driplab/drip/record"
)

// Write a record with the one writer and read it back with the one
// reader: a JSON line a record, read back as written.
func ExampleWriter() {
	var file bytes.Buffer
	w := record.NewWriter(&file)
	err := w.Write(&record.Record{V: record.RecordVersion, Seq: 1, Status: record.StatusComplete, Format: "openai-chat",
		Frames: []record.Frame{
			{TMS: 120, Kind: record.KindContent, Text: "Hello"},
			{TMS: 145, Read: 1, Kind: record.KindContent, Text: " world"},
			{TMS: 150, Read: 2, Kind: record.KindEnd},
		}})
	if err != nil {
		panic(err)
	}
	fmt.Println("lines:", strings.Count(file.String(), "\n"))

	recs, notes, err := record.ReadAll(&file, nil)
	if err != nil {
		panic(err)
	}
	fmt.Println("records:", len(recs), "notes:", len(notes))
	fmt.Printf("seq %d, %d frames, text %q\n", recs[0].Seq, len(recs[0].Frames), recs[0].Text())
	// Output:
	// lines: 1
	// records: 1 notes: 0
	// seq 1, 3 frames, text "Hello world"
}

// Decode hands each record to a function as it reads; a line that is no
// record stops it with an error naming the line, and a last line the file
// ends inside (a run stopped mid-write) is skipped with a note.
func ExampleDecode() {
	file := `{"v":1,"seq":1,"status":"complete"}` + "\n" +
		`{"v":1,"seq":2,"status":"complete"}` + "\n" +
		`{"v":1,"seq":3,"sta`
	notes, err := record.Decode(strings.NewReader(file), func(r *record.Record) error {
		fmt.Println("stream", r.Seq, r.Status)
		return nil
	})
	fmt.Println(notes, err)

	_, err = record.Decode(strings.NewReader(`{"v":1}`+"\n"+`{"v":2}`+"\n"), func(*record.Record) error { return nil })
	fmt.Println(err)
	// Output:
	// stream 1 complete
	// stream 2 complete
	// [line 3: partial record skipped (the file ends inside it: a run stopped mid-write?)] <nil>
	// line 2: record version 2: this drip reads version 1 (a newer drip wrote it?)
}
