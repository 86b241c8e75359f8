package record

import (
	"bufio"
	"bytes"
	"compress/gzip"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"math"
	"slices"
	"strconv"
	"strings"

	"golang.org/x/net/http/httpguts"

	"github.com/driplab/drip/internal/redact"
)

// MaxLine bounds one line of a record file: 1 GiB, as the scanner before
// it allowed, above the longest line drip record writes at the default
// bounds (64 MiB of response, as sent or decoded, and its text again in
// the frames, 32 MiB of request, each byte escaped to 6 at worst, 100,000
// frames and as many reads and one, drip record merging the rest into
// that one; a --max-bytes or --max-frames past the default can write
// longer), yet low enough that a file with no line end (a stray binary)
// is refused before it holds the machine.
const MaxLine = 1 << 30

// maxTimeMS bounds a time the reader accepts (about 31 years), as the
// derivation does: no sum over records can overflow.
const maxTimeMS = 1e12

// MaxShards bounds the shards of one run (probe.ParseShard's N): far
// above any fleet, yet low enough that drip merge can name or count the
// shards a crafted record claims without running out of memory.
const MaxShards = 100_000

// LineError is a line of a record file that is not a record drip can use.
type LineError struct {
	Line int
	Err  error
}

func (e *LineError) Error() string { return fmt.Sprintf("line %d: %v", e.Line, e.Err) }
func (e *LineError) Unwrap() error { return e.Err }

// Decode is the one reader of record files (Writer writes them): JSON
// Lines, one record a line, gzip'd or not, a leading byte order mark and
// CRLF line ends tolerated, blank lines skipped. Each record is checked
// (Check), its target put through the one URL rule (redact.URL: no user
// info, fragment or secret query value), and handed to each, whose error
// stops the reading; every error names its line (LineError). A last line
// cut short (no line end, its JSON unfinished: a run killed mid-write) is
// skipped and said in notes; any other bad line is an error.
func Decode(r io.Reader, each func(*Record) error) (notes []string, err error) {
	br, err := unwrap(r)
	if err != nil {
		return nil, &LineError{1, err}
	}
	seen := map[StreamID]int{}
	var line []byte
	for n := 1; ; n++ {
		var ended bool
		line, ended, err = readLine(br, line[:0])
		if err != nil {
			return notes, &LineError{n, err}
		}
		b := bytes.TrimSpace(line)
		if len(b) == 0 {
			if !ended {
				return notes, nil
			}
			continue
		}
		rec := &Record{}
		if err := json.Unmarshal(b, rec); err != nil {
			if !ended && cutShort(err, b) {
				return append(notes, fmt.Sprintf("line %d: partial record skipped (the file ends inside it: a run stopped mid-write?)", n)), nil
			}
			return notes, &LineError{n, err}
		}
		if err := Check(rec); err != nil {
			return notes, &LineError{n, err}
		}
		// A target is printed by every command that reads the file: a
		// hand-made or old one may hold a key, which goes here, once.
		rec.Target = redact.URL(rec.Target)
		if id := rec.StreamID(); rec.RunID != "" {
			if first, ok := seen[id]; ok {
				return notes, &LineError{n, fmt.Errorf("the same stream as line %d (run id %q, host %q, seq %d): a file holds each stream once (was one appended to itself?)", first, rec.RunID, rec.Host, rec.Seq)}
			}
			seen[id] = n
		}
		if err := each(rec); err != nil {
			return notes, &LineError{n, err}
		}
		if !ended {
			return notes, nil
		}
		if cap(line) > 1<<20 {
			line = nil // a long line's buffer is not held for the rest of the file
		}
	}
}

// ReadAll reads a whole record file through Decode and keeps its records:
// each is handed to each first (stats.Rederive derives it again; nil
// keeps it as read), whose error stops the reading. On an error it keeps
// nothing; the error names its line.
func ReadAll(r io.Reader, each func(*Record) error) (recs []*Record, notes []string, err error) {
	notes, err = Decode(r, func(rec *Record) error {
		if each != nil {
			if err := each(rec); err != nil {
				return err
			}
		}
		recs = append(recs, rec)
		return nil
	})
	if err != nil {
		return nil, nil, err
	}
	return recs, notes, nil
}

// StreamID is what tells streams apart: drip merge refuses one twice.
type StreamID struct {
	Run, Host string
	Seq       int
}

// StreamID is r's.
func (r *Record) StreamID() StreamID { return StreamID{r.RunID, r.Host, r.Seq} }

// StreamKey is the id drip sends with r's request (StreamHeader): its run
// and seq, which tell a run's streams apart across hosts (a shard's seq is
// the one a single agent would give it); "" for a stream of no run.
func (r *Record) StreamKey() string {
	if r.RunID == "" {
		return ""
	}
	return r.RunID + "-" + strconv.Itoa(r.Seq)
}

// unwrap is r to read lines from: gunzipped when it starts with gzip's
// magic, past a UTF-8 byte order mark.
func unwrap(r io.Reader) (*bufio.Reader, error) {
	br := bufio.NewReaderSize(r, 64<<10)
	if magic, _ := br.Peek(2); bytes.Equal(magic, []byte{0x1f, 0x8b}) {
		gz, err := gzip.NewReader(br)
		if err != nil {
			return nil, fmt.Errorf("a gzip'd file that does not open: %w", err)
		}
		br = bufio.NewReaderSize(gzipContent{gz}, 64<<10)
	}
	if bom, _ := br.Peek(3); bytes.Equal(bom, []byte("\xef\xbb\xbf")) {
		br.Discard(3)
	}
	return br, nil
}

// errGzip is a gzip'd file whose compressed bytes are damaged or cut
// short: the file's fault, not the machine's.
var errGzip = errors.New("the gzip'd file is damaged")

// gzipContent tells gzip's errors from the file's reads (an
// *fs.PathError, passed through gzip as it came).
type gzipContent struct{ r io.Reader }

func (g gzipContent) Read(p []byte) (int, error) {
	n, err := g.r.Read(p)
	var pe *fs.PathError
	if err != nil && err != io.EOF && !errors.As(err, &pe) {
		err = fmt.Errorf("%w: %w", errGzip, err)
	}
	return n, err
}

// readLine appends the next line to buf, without its line end, and says
// whether a line end ended it. A line must be a JSON object: one that
// starts with anything else is refused at its first bytes, not read to
// its end (a binary file, /dev/zero); one longer than MaxLine is refused.
func readLine(br *bufio.Reader, buf []byte) ([]byte, bool, error) {
	checked := false
	for {
		chunk, err := br.ReadSlice('\n')
		if need := len(buf) + len(chunk); need > cap(buf) {
			// Double, as bufio.Scanner does: append's gentler growth for
			// a long line leaves more copies for the GC to find.
			buf = append(make([]byte, 0, max(2*cap(buf), need)), buf...)
		}
		buf = append(buf, chunk...)
		if !checked {
			if t := bytes.TrimLeft(buf, " \t\r"); len(t) > 0 {
				if t[0] != '{' && t[0] != '\n' {
					return nil, false, fmt.Errorf("not a JSON object: it starts with %s (a record file is JSON Lines, one record a line)", startOf(t))
				}
				checked = true
			}
		}
		if len(buf) > MaxLine {
			return nil, false, fmt.Errorf("longer than %d MiB with no line end: not a record file", MaxLine>>20)
		}
		switch {
		case err == nil:
			return buf[:len(buf)-1], true, nil
		case errors.Is(err, bufio.ErrBufferFull):
			continue
		case err == io.EOF:
			return buf, false, nil
		case errors.Is(err, errGzip):
			return nil, false, err
		default:
			return nil, false, fmt.Errorf("reading: %w", err)
		}
	}
}

// startOf quotes the first bytes of a line for an error: escaped, so no
// byte of it reaches a terminal as a control.
func startOf(b []byte) string {
	b = bytes.TrimRight(b, "\r\n")
	if len(b) > 16 {
		b = b[:16]
	}
	return fmt.Sprintf("%q", b)
}

// cutShort says a JSON error is the input ending inside a value.
func cutShort(err error, b []byte) bool {
	var se *json.SyntaxError
	return errors.As(err, &se) && se.Offset >= int64(len(b))
}

// Check reports what in a record read back no drip writes and no reader
// can use: another version, an HTTP status that is none, a negative count,
// a time that is not one, an exchange whose reads do not add up to its
// kept response. Times of frames and the derived figures are checked when
// the record is derived again (stats.Derive).
func Check(r *Record) error {
	switch {
	case r.V == 0:
		return errors.New(`no record version ("v"): not a drip record`)
	case r.V != RecordVersion:
		return fmt.Errorf("record version %d: this drip reads version %d (a newer drip wrote it?)", r.V, RecordVersion)
	case r.HTTPStatus != 0 && (r.HTTPStatus < 100 || r.HTTPStatus > 999):
		return fmt.Errorf("http_status %d is not an HTTP status (100 to 999, or absent for no response)", r.HTTPStatus)
	case r.Keepalives < 0:
		return fmt.Errorf("keepalives %d: a count is not negative", r.Keepalives)
	}
	for _, t := range []struct {
		name string
		v    *float64
	}{{"connect_wait_ms", r.ConnectWaitMS}, {"level", r.Level}} {
		if t.v != nil && !okTime(*t.v) {
			return fmt.Errorf("%s is %v: want 0 to %g", t.name, *t.v, maxTimeMS)
		}
	}
	for i, f := range r.Frames {
		if f.Bytes < 0 || f.Tokens < 0 {
			return fmt.Errorf("frame %d: bytes %d, tokens %d: a count is not negative", i, f.Bytes, f.Tokens)
		}
	}
	if w := r.Workload; w != nil && (w.MaxTokens < 0 || w.Concurrency < 0 || !(w.Rate >= 0)) {
		return fmt.Errorf("workload: max_tokens %d, concurrency %d, rate %v: none is negative", w.MaxTokens, w.Concurrency, w.Rate)
	}
	if w := r.Workload; w != nil && w.Shard != "" {
		if _, _, err := ParseShard(w.Shard); err != nil {
			return fmt.Errorf("workload %w", err)
		}
	}
	if r.Exchange != nil {
		return checkExchange(r.Exchange)
	}
	return nil
}

// ParseShard reads a record's "i/N": shard i of a run sharded N ways,
// 0 ≤ i < N ≤ MaxShards.
func ParseShard(s string) (i, n int, err error) {
	a, b, ok := strings.Cut(s, "/")
	i, err1 := strconv.Atoi(a)
	n, err2 := strconv.Atoi(b)
	if !ok || err1 != nil || err2 != nil || i < 0 || i >= n || n > MaxShards {
		return 0, 0, fmt.Errorf("shard %q: want i/N with 0 ≤ i < N ≤ %d", s, MaxShards)
	}
	return i, n, nil
}

// checkExchange checks that an exchange's headers are HTTP headers and
// that its reads cut its kept response into pieces, in time order: drip
// fixtures serve --from writes them so. Each read is held to the bytes
// still left, so no sum of reads can overflow (2^63−1 twice wraps to a
// small total that would match).
func checkExchange(x *Exchange) error {
	if err := checkHeader(x.Header); err != nil {
		return err
	}
	n := x.ResponseLen()
	left, prev := n, 0.0
	for i, rd := range x.Reads {
		switch {
		case rd.N <= 0:
			return fmt.Errorf("exchange read %d of %d bytes: a read brings at least one", i, rd.N)
		case rd.N > left:
			return fmt.Errorf("exchange read %d of %d bytes: past the kept response (%d bytes, %d left after the reads before it)", i, rd.N, n, left)
		case !okTime(rd.TMS) || rd.TMS < prev:
			return fmt.Errorf("exchange read %d at %v ms: want 0 to %g, not before the read before it (%v ms)", i, rd.TMS, maxTimeMS, prev)
		}
		left -= rd.N
		prev = rd.TMS
	}
	if len(x.Reads) > 0 && left != 0 {
		return fmt.Errorf("exchange reads bring %d bytes, its kept response has %d", n-left, n)
	}
	return nil
}

// checkHeader refuses a header name that is no HTTP token and a value
// with a control byte: drip record keeps what its HTTP server took, and
// replay sent such a header into a transport error read as "reset". Of
// several, it names the first in sorted order (a map has none), without
// allocating for a good one.
func checkHeader(h map[string][]string) error {
	var bad string
	var err error
	for name, vs := range h {
		var e error
		if !httpguts.ValidHeaderFieldName(name) {
			e = fmt.Errorf("exchange header %q: not a valid header name", name)
		} else if slices.ContainsFunc(vs, func(v string) bool { return !httpguts.ValidHeaderFieldValue(v) }) {
			e = fmt.Errorf("exchange header %q: its value holds a control byte", name)
		}
		if e != nil && (err == nil || name < bad) {
			bad, err = name, e
		}
	}
	return err
}

func okTime(v float64) bool { return !math.IsNaN(v) && v >= 0 && v <= maxTimeMS }
