// Package hops puts two vantage points of one stream side by side. One is
// the client's record, the other a relay's record of the same exchange
// (drip record writes one beside the model server). Analyse matches a
// client's record file with its relays' files and returns a Report, and
// Live does the same for one stream while it runs. Every stall at the
// client gets an owner. The owner is the upstream when the relay saw the
// same gap, and the path after the relay when it did not. The hosts'
// clocks are never compared. Each side's times are offsets from its own
// start, and the path's delay per frame is the difference of the two,
// relative to its minimum.
package hops

import (
	"bytes"
	"encoding/json"
	"fmt"

	"github.com/driplab/drip/record"
	"github.com/driplab/drip/stats"
)

// File is one record file, named for the errors that refuse it.
type File struct {
	Name    string
	Records []*record.Record
}

// FileError refuses a file that does not belong with the others. The
// command exits 2 naming it.
type FileError struct {
	File string
	Msg  string
}

func (e *FileError) Error() string { return e.File + ": " + e.Msg }

// Ways a client stream was matched with a relay exchange.
const (
	ByID   = "id"   // the stream's key in record.StreamHeader
	ByBody = "body" // the same request body, in order
)

// pair is a client stream and the relay exchange that carried it.
type pair struct {
	client, relay *record.Record
	file, by      string
}

// match pairs each of client's streams with at most one exchange of each
// relay file, as relays in a chain each recorded it. It matches by the id
// the client sent, else by the request body (kept with --keep-request),
// taking the first exchange not yet taken with the same body. An id that
// two client streams, or two exchanges of one file, claim is ambiguous.
// It pairs nothing in that file, by id or by body, and is reported. A
// relay file none of whose exchanges matches, or a client file that is a
// relay's, is refused.
func match(client File, relays []File) ([]pair, []Ambiguous, int, error) {
	if len(client.Records) > 0 && client.Records[0].Exchange != nil {
		return nil, nil, 0, &FileError{client.Name, "a relay's record (drip record), not a client's: give the client's file (drip run --out) first"}
	}
	ix, err := index(relays)
	if err != nil {
		return nil, nil, 0, err
	}
	clientIDs := map[string]int{}
	for _, c := range client.Records {
		if k := c.StreamKey(); k != "" {
			clientIDs[k]++
		}
	}
	var pairs []pair
	seen := map[fileKey]bool{} // ambiguous ids reported
	var ambiguous []Ambiguous
	taken := map[*record.Record]bool{}
	unmatched := 0
	for _, c := range client.Records {
		n := len(pairs)
		for i, f := range relays {
			id := fileKey{i, c.StreamKey()}
			if id.key != "" && (clientIDs[id.key] > 1 || ix.claims[id] > 1) {
				if !seen[id] {
					seen[id] = true
					ambiguous = append(ambiguous, Ambiguous{ID: id.key, RelayFile: f.Name, ClientStreams: clientIDs[id.key], Exchanges: ix.claims[id]})
				}
				continue
			}
			r, by := ix.byID[id], ByID
			if r == nil || id.key == "" || taken[r] {
				r, by = ix.firstFree(fileKey{i, compact(c.Request)}, taken, len(c.Request) > 0), ByBody
			}
			if r != nil {
				taken[r] = true
				pairs = append(pairs, pair{client: c, relay: r, file: f.Name, by: by})
			}
		}
		if len(pairs) == n {
			unmatched++
		}
	}
	return pairs, ambiguous, unmatched, refuseStrangers(client, relays, pairs, ambiguous)
}

// Ambiguous is a stream id that more than one client stream, or more than
// one exchange of a relay file, claims. drip hops pairs it with none
// there rather than guess which is the client's.
type Ambiguous struct {
	ID            string `json:"id"`
	RelayFile     string `json:"relay_file"`
	ClientStreams int    `json:"client_streams"`
	Exchanges     int    `json:"exchanges"`
}

// fileKey is a stream id or a compacted request body in one relay file
// (its index in the relays).
type fileKey struct {
	file int
	key  string
}

// relayIndex is the relays' streamed exchanges by file and id (claims
// counts the exchanges of each), and by file and body in order, with
// where the search for a free one of each body resumes.
type relayIndex struct {
	byID   map[fileKey]*record.Record
	claims map[fileKey]int
	byBody map[fileKey][]*record.Record
	next   map[fileKey]int
}

// index indexes the relays. A file whose records have no exchange is
// refused.
func index(relays []File) (*relayIndex, error) {
	ix := &relayIndex{byID: map[fileKey]*record.Record{}, claims: map[fileKey]int{}, byBody: map[fileKey][]*record.Record{}, next: map[fileKey]int{}}
	for i, f := range relays {
		for _, r := range f.Records {
			if r.Exchange == nil {
				return nil, &FileError{f.Name, "not a relay's record file (drip record --out): its records have no exchange"}
			}
			if r.Phase == record.PhasePassthrough {
				continue
			}
			if k := r.Exchange.StreamKey(); k != "" {
				ix.byID[fileKey{i, k}] = r
				ix.claims[fileKey{i, k}]++
			}
			b := fileKey{i, compact(r.Exchange.RequestBody())}
			ix.byBody[b] = append(ix.byBody[b], r)
		}
	}
	return ix, nil
}

// firstFree is the first exchange of body b not taken. It is nil when ok
// is false, because a client stream with no kept body matches no body.
// The search resumes where the last one for b stopped, for what it passed
// is taken. A file of one body said 100k times so costs 100k steps, not
// 100k².
func (ix *relayIndex) firstFree(b fileKey, taken map[*record.Record]bool, ok bool) *record.Record {
	if !ok {
		return nil
	}
	rs, i := ix.byBody[b], ix.next[b]
	for i < len(rs) && taken[rs[i]] {
		i++
	}
	ix.next[b] = i
	if i < len(rs) {
		return rs[i]
	}
	return nil
}

// refuseStrangers refuses a relay file that matched none of the client's
// streams, nor claimed one's id ambiguously. Such a file was not recorded
// on this client's path.
func refuseStrangers(client File, relays []File, pairs []pair, ambiguous []Ambiguous) error {
	used := map[string]bool{}
	for _, p := range pairs {
		used[p.file] = true
	}
	for _, a := range ambiguous {
		used[a.RelayFile] = true
	}
	for _, f := range relays {
		if !used[f.Name] {
			return &FileError{f.Name, fmt.Sprintf("none of its %s matches a stream of %s by its %s id or its request body (kept with drip run --keep-request): not recorded on this client's path?",
				stats.Count(len(f.Records), "exchange"), client.Name, record.StreamHeader)}
		}
	}
	return nil
}

// compact is a JSON body without insignificant space, so a body a relay
// kept matches the one the client kept. Any other body stays as it is.
func compact(b []byte) string {
	var out bytes.Buffer
	if json.Compact(&out, b) != nil {
		return string(b)
	}
	return out.String()
}
