package record_test

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"io"
	"math"
	"strings"
	"testing"

	"github.com/driplab/drip/record"
)

// line is one record line: a stream of run r, seq n, with two content
// frames and an end marker, and an exchange whose reads cut its response.
func line(t *testing.T, edit func(*record.Record)) string {
	t.Helper()
	x := &record.Exchange{Method: "POST", Path: "/v1/chat/completions", Streamed: true, ContentType: "text/event-stream",
		Reads: []record.Read{{TMS: 10, N: 4}, {TMS: 20, N: 3}}}
	x.SetResponse([]byte("abcdefg"))
	r := &record.Record{V: record.RecordVersion, RunID: "r", Seq: 0, Phase: record.PhaseMeasure, Format: "openai-chat",
		HTTPStatus: 200, DurationMS: 30, Exchange: x, Frames: []record.Frame{
			{TMS: 10, Kind: record.KindContent, Text: "a"}, {TMS: 20, Read: 1, Kind: record.KindContent, Text: "b"}, {TMS: 20, Read: 1, Kind: record.KindEnd}}}
	if edit != nil {
		edit(r)
	}
	b, err := json.Marshal(r)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

func decode(r io.Reader) (seqs []int, notes []string, err error) {
	notes, err = record.Decode(r, func(rec *record.Record) error {
		seqs = append(seqs, rec.Seq)
		return nil
	})
	return seqs, notes, err
}

// The forms a record file takes in the wild read as the records they hold:
// gzip'd, with a byte order mark, CRLF line ends, blank lines, no final
// line end; a last line the file ends inside is skipped and said.
func TestDecodeReadsTheFormsAFileTakes(t *testing.T) {
	a, b := line(t, nil), line(t, func(r *record.Record) { r.Seq = 1 })
	gz := func(s string) string {
		var buf bytes.Buffer
		w := gzip.NewWriter(&buf)
		io.WriteString(w, s)
		w.Close()
		return buf.String()
	}
	for _, c := range []struct {
		name, file string
		notes      int
	}{
		{"plain", a + "\n" + b + "\n", 0},
		{"no final line end", a + "\n" + b, 0},
		{"byte order mark", "\xef\xbb\xbf" + a + "\n" + b + "\n", 0},
		{"CRLF", a + "\r\n" + b + "\r\n", 0},
		{"blank lines", "\n" + a + "\n\n  \r\n" + b + "\n\n", 0},
		{"gzip'd", gz(a + "\n" + b + "\n"), 0},
		{"cut inside the last line", a + "\n" + b + "\n" + b[:len(b)/2], 1},
	} {
		seqs, notes, err := decode(strings.NewReader(c.file))
		if err != nil || len(seqs) != 2 || seqs[0] != 0 || seqs[1] != 1 || len(notes) != c.notes {
			t.Errorf("%s: seqs %v, notes %q, error %v; want [0 1] and %d note(s)", c.name, seqs, notes, err, c.notes)
		}
	}
}

// Everything else that is not a record is refused with its line and what
// is wrong, quoted so that no byte of the file reaches a terminal.
func TestDecodeRefusesWhatIsNoRecord(t *testing.T) {
	good := line(t, nil)
	edit := func(f func(*record.Record)) string {
		return good + "\n" + line(t, func(r *record.Record) { r.Seq = 1; f(r) }) + "\n"
	}
	for _, c := range []struct {
		name, file, says string
	}{
		{"binary", "\x00\xff\xfe\x01garbage", `line 1: not a JSON object: it starts with "\x00\xff\xfe\x01garbage"`},
		{"an array", good + "\n[1,2,3]\n", `line 2: not a JSON object: it starts with "[1,2,3]"`},
		{"nested 100k deep", `{"v":1,"server":{"a":` + strings.Repeat("[", 100_000) + "\n", "line 1: invalid character '[' exceeded max depth"},
		{"NaN", strings.Replace(good, `"t_ms":10`, `"t_ms":NaN`, 1) + "\n", "line 1: invalid character 'N'"},
		{"1e400", strings.Replace(good, `"t_ms":10`, `"t_ms":1e400`, 1) + "\n", "line 1: json: cannot unmarshal number 1e400"},
		{"a bad last line with its line end", good + "\n" + `{"v":1,"seq":"one"}` + "\n", "line 2: json: cannot unmarshal string"},
		{"a bad last line, complete, without one", good + "\n" + `{"v":1,"seq":"one"}`, "line 2: json: cannot unmarshal string"},
		{"a bad line before a good one", `{"v":1,` + "\n" + good + "\n", "line 1: unexpected end of JSON input"},
		{"no version", strings.Replace(good, `"v":1,`, "", 1) + "\n", `line 1: no record version ("v"): not a drip record`},
		{"a newer version", strings.Replace(good, `"v":1,`, `"v":2,`, 1) + "\n", "line 1: record version 2: this drip reads version 1"},
		{"a future frame kind with a terminal escape", strings.Replace(good, `"kind":"end"`, `"kind":"thought\u001b]52;c;eA==\u0007"`, 1) + "\n",
			`line 1: frame kind "thought\x1b]52;c;eA==\a" is not one this drip knows`},
		{"a future channel", strings.Replace(good, `"kind":"content"`, `"kind":"content","channel":"dream"`, 1) + "\n", `line 1: channel "dream" is not one this drip knows`},
		{"status 0 is no response, -1 none", edit(func(r *record.Record) { r.HTTPStatus = -1 }), "line 2: http_status -1 is not an HTTP status"},
		{"status 1000", edit(func(r *record.Record) { r.HTTPStatus = 1000 }), "line 2: http_status 1000"},
		{"negative frame bytes", edit(func(r *record.Record) { r.Frames[0].Bytes = -1 }), "line 2: frame 0: bytes -1"},
		{"negative keepalives", edit(func(r *record.Record) { r.Keepalives = -2 }), "line 2: keepalives -2"},
		{"negative connect wait", edit(func(r *record.Record) { w := -1.0; r.ConnectWaitMS = &w }), "line 2: connect_wait_ms is -1"},
		{"negative rate", edit(func(r *record.Record) { r.Workload = &record.RecordWorkload{Rate: -1} }), "line 2: workload: max_tokens 0, concurrency 0, rate -1"},
		{"reads past the response", edit(func(r *record.Record) { r.Exchange.Reads[1].N = 30 }), "line 2: exchange read 1 of 30 bytes: past the kept response (7 bytes, 3 left"},
		{"a header name that is no token", edit(func(r *record.Record) { r.Exchange.Header = map[string][]string{"X-Ok": {"1"}, "X Bad:": {"v"}} }), `line 2: exchange header "X Bad:": not a valid header name`},
		{"a header value with a line end", edit(func(r *record.Record) { r.Exchange.Header = map[string][]string{"X-A": {"v\r\nX-B: 1"}} }), `line 2: exchange header "X-A": its value holds a control byte`},
		{"reads short of the response", edit(func(r *record.Record) { r.Exchange.Reads[1].N = 2 }), "line 2: exchange reads bring 6 bytes, its kept response has 7"},
		// 2^63−1 twice and 9 wrap to 7, the response's length.
		{"reads whose sum overflows", edit(func(r *record.Record) {
			r.Exchange.Reads = []record.Read{{TMS: 1, N: math.MaxInt}, {TMS: 2, N: math.MaxInt}, {TMS: 3, N: 9}}
		}), "line 2: exchange read 0 of 9223372036854775807 bytes: past the kept response (7 bytes, 7 left"},
		{"a read of no bytes", edit(func(r *record.Record) { r.Exchange.Reads[0].N = 0 }), "line 2: exchange read 0 of 0 bytes"},
		{"reads out of order", edit(func(r *record.Record) { r.Exchange.Reads[1].TMS = 5 }), "line 2: exchange read 1 at 5 ms"},
		{"a read 10^300 ms in", edit(func(r *record.Record) { r.Exchange.Reads[1].TMS = 1e300 }), "line 2: exchange read 1 at 1e+300 ms"},
		{"a billion shards", edit(func(r *record.Record) { r.Workload = &record.RecordWorkload{Shard: "0/1000000000"} }),
			`line 2: workload shard "0/1000000000": want i/N with 0 ≤ i < N ≤ 100000`},
		{"a shard past its count", edit(func(r *record.Record) { r.Workload = &record.RecordWorkload{Shard: "3/3"} }), `line 2: workload shard "3/3"`},
		{"a shard that is no i/N", edit(func(r *record.Record) { r.Workload = &record.RecordWorkload{Shard: "1/3x"} }), `line 2: workload shard "1/3x"`},
		{"the same stream twice", good + "\n" + good + "\n", `line 2: the same stream as line 1 (run id "r", host "", seq 0)`},
	} {
		_, _, err := decode(strings.NewReader(c.file))
		var le *record.LineError
		if !errors.As(err, &le) || !strings.Contains(err.Error(), c.says) {
			t.Errorf("%s: error %v; want a line error saying %q", c.name, err, c.says)
		}
	}
}

// A file that never ends a line (/dev/zero) is refused at its first bytes,
// not read into memory to the line bound.
func TestDecodeRefusesAnEndlessBinaryAtOnce(t *testing.T) {
	r := &counting{}
	_, _, err := decode(r)
	if err == nil || !strings.Contains(err.Error(), `line 1: not a JSON object: it starts with "\x00\x00`) || r.n > 1<<20 {
		t.Errorf("error %v after %d bytes; want line 1 refused within the first read", err, r.n)
	}
}

// counting is an endless stream of zero bytes that counts what was read.
type counting struct{ n int }

func (c *counting) Read(p []byte) (int, error) {
	clear(p)
	c.n += len(p)
	return len(p), nil
}

// Each record's own check (the caller's derivation) stops the reading,
// its line named.
func TestDecodeNamesTheLineOfTheCallersError(t *testing.T) {
	file := line(t, nil) + "\n" + line(t, func(r *record.Record) { r.Seq = 1 }) + "\n"
	_, err := record.Decode(strings.NewReader(file), func(r *record.Record) error {
		if r.Seq == 1 {
			return errors.New("bad timestamp")
		}
		return nil
	})
	if err == nil || err.Error() != "line 2: bad timestamp" {
		t.Errorf("error %v, want line 2: bad timestamp", err)
	}
}

// Checking an exchange's reads against its kept response copies nothing:
// the response may be 64 MiB a record, and every record read is checked.
func TestCheckDoesNotCopyTheResponse(t *testing.T) {
	var r record.Record
	if err := json.Unmarshal([]byte(line(t, func(r *record.Record) {
		r.Exchange.SetResponse(bytes.Repeat([]byte("a"), 1<<20))
		r.Exchange.Reads = []record.Read{{TMS: 10, N: 1 << 20}}
	})), &r); err != nil {
		t.Fatal(err)
	}
	var err error
	allocs := testing.AllocsPerRun(10, func() { err = record.Check(&r) })
	if err != nil || allocs > 0 {
		t.Errorf("Check: %v, %v allocations; want no error, none", err, allocs)
	}
}
