package views

import (
	"fmt"
	"slices"
	"strings"

	"github.com/charmbracelet/x/ansi"

	"github.com/driplab/drip/internal/sanitize"
	"github.com/driplab/drip/internal/textfmt"
)

// whatLine is a header's second line, "target URL" and the parts after
// it (format, model, load). Each of alts is a set of parts, richest
// first. The first set that leaves the URL whole is used. With the last
// set the URL is cut in its middle (ElideURL), to no less than its host
// and its path's last word (or urlFloor). What still does not fit is cut
// at the end.
func whatLine(target string, width int, st *Styles, alts ...[]string) string {
	url := sanitize.Line(target)
	sep := st.Dim.Render(" · ")
	label := st.Label.Render("target ")
	for i, parts := range alts {
		rest := ""
		if len(parts) > 0 {
			rest = sep + strings.Join(parts, sep)
		}
		room := width - textfmt.Width(label) - textfmt.Width(rest)
		if room >= textfmt.Width(url) || i == len(alts)-1 {
			u := ElideURLs(url, min(width-textfmt.Width(label), max(room, urlMin(url, urlFloor))))
			// The parts that still do not fit are cut at their end, and the
			// URL's end is kept. A stub too short to read goes.
			if left := width - textfmt.Width(label) - textfmt.Width(u); textfmt.Width(rest) > left {
				if rest = ansi.Truncate(rest, left, "…"); left < 8 {
					rest = ""
				}
			}
			return label + u + rest
		}
	}
	return label + url
}

// urlFloor is the most a URL keeps for its host and its path's last word
// when the parts after it want the room. Past it both ends of the URL are
// kept ("https://bedrock-runtim…h-response-stream").
const urlFloor = 40

// urlMin is the least of u a cut leaves, no more than floor. It keeps the
// scheme and host, "…" and the path's last word ("http://host…completions").
func urlMin(u string, floor int) int {
	head, path := splitURL(u)
	if q := strings.IndexByte(path, '?'); q >= 0 {
		path = path[:q]
	}
	last := path[strings.LastIndexByte(path, '/')+1:]
	return min(textfmt.Width(u), textfmt.Width(head)+1+textfmt.Width(last), floor)
}

// splitURL is u's scheme and host, and the rest (its path and query).
func splitURL(u string) (head, path string) {
	if i := strings.Index(u, "://"); i >= 0 {
		if j := strings.IndexByte(u[i+3:], '/'); j >= 0 {
			return u[:i+3+j], u[i+3+j:]
		}
	}
	return u, ""
}

// ElideURL cuts u to width cells, keeping what names the endpoint. It
// keeps the scheme and host and the path's end
// ("http://host…/chat/completions"), cut at a slash where one fits. A query
// goes first ("…/completions?…"). Where the host does not fit, it keeps the
// host's start and the path's last word
// ("bedrock-runtime.us-e…/invoke-with-response-stream"). Narrower still, it
// keeps a short host whole and what of the path's end fits
// ("localhost:18947…tions").
func ElideURL(u string, width int) string {
	switch {
	case textfmt.Width(u) <= width:
		return u
	case width < 10: // too narrow to keep two ends
		return ansi.Truncate(u, width, "…")
	}
	head, path := splitURL(u)
	if q := strings.IndexByte(path, '?'); q >= 0 {
		if short := head + path[:q] + "?…"; textfmt.Width(short) <= width {
			return short
		}
		path = path[:q]
	}
	room := width - textfmt.Width(head) - 1 // the "…"
	if path == "" || room < min(textfmt.Width(path), 8) {
		// The host and a path's end do not fit. Keep the start of the host
		// (without the scheme) and the path's last word while 8 cells of the
		// host stay, else as much of both ends as fits.
		base, last := head+path, path[strings.LastIndexByte(path, '/')+1:]
		if i := strings.Index(base, "://"); i >= 0 {
			base = base[i+3:]
		}
		if textfmt.Width(base) <= width { // without the scheme it fits whole
			return base
		}
		if start := width - 2 - textfmt.Width(last); last != "" && start >= 8 {
			return ansi.Truncate(base, start, "") + "…/" + last
		}
		if host := base[:strings.IndexByte(base+"/", '/')]; textfmt.Width(host) <= shortHost && textfmt.Width(host)+1 < width {
			// Too narrow for 8 cells of the host and the path's last word.
			// A short host (an address and its port, localhost) stays whole
			// where its start and end would read `localhost:…pletions`. Then
			// comes what of the path's end fits, if enough to read.
			tail := ansi.TruncateLeft(path, textfmt.Width(path)-(width-textfmt.Width(host)-1), "")
			if textfmt.Width(tail) < 4 {
				tail = ""
			}
			return host + "…" + tail
		}
		return ansi.Truncate(base, (width+1)/2, "") + "…" + ansi.TruncateLeft(base, textfmt.Width(base)-(width-1-(width+1)/2), "")
	}
	tail := ansi.TruncateLeft(path, textfmt.Width(path)-room, "")
	if i := strings.IndexByte(tail, '/'); i > 0 && textfmt.Width(tail[i:]) >= 8 {
		tail = tail[i:]
	}
	return head + "…" + tail
}

// targetSep joins the targets of a run that sent to several
// (compare.Workload's "a, b"). Without it ElideURL would cut the pair as
// one URL, the first one's host before the second one's path.
const targetSep = ", "

// ElideURLs is ElideURL for a list of targets joined by ", ". Each is cut
// to its share of width (no less than its host and path's last word, or
// urlFloor), and the ones that still do not fit are counted ("+2 more").
func ElideURLs(list string, width int) string {
	urls := strings.Split(list, targetSep)
	if len(urls) == 1 || textfmt.Width(list) <= width {
		return ElideURL(list, width)
	}
	for n := len(urls); n > 1; n-- {
		more := ""
		if n < len(urls) {
			more = fmt.Sprintf("%s+%d more", targetSep, len(urls)-n)
		}
		share := (width - textfmt.Width(more) - textfmt.Width(targetSep)*(n-1)) / n
		parts := make([]string, n)
		fits := true
		for i, u := range urls[:n] {
			parts[i] = ElideURL(u, share)
			fits = fits && share >= urlMin(u, urlFloor)
		}
		if fits {
			return strings.Join(parts, targetSep) + more
		}
	}
	more := fmt.Sprintf("%s+%d more", targetSep, len(urls)-1)
	return ElideURL(urls[0], max(width-textfmt.Width(more), 1)) + more
}

// shortHost is the longest host (without the scheme) ElideURL keeps
// whole where the path's last word does not fit beside 8 cells of it. Such
// a host is an address and its port, localhost or a short name. A longer
// one (a cloud endpoint's) is cut at both ends.
const shortHost = 24

// whatParts are the parts after a header's target, richest first. The first
// has the format, and the next leaves it out, as the load and the model
// matter more than the format the path implies. Then come sets with fewer
// of the load's parts, the last dropped first ("each after 1 warmup per
// prompt" goes before "16 runs per level"). The load's first part is always
// kept. An empty one is left out.
func whatParts(format, model, load string, st *Styles) [][]string {
	var head []string
	if model != "" {
		head = append(head, st.Label.Render("model ")+sanitize.Line(model))
	}
	var alts [][]string
	loads := strings.Split(load, " · ")
	for n := len(loads); n > 0; n-- {
		parts := head
		if load != "" {
			parts = append(slices.Clone(head), st.Dim.Render(strings.Join(loads[:n], " · ")))
		}
		alts = append(alts, parts)
		if n == len(loads) && format != "" {
			alts = slices.Insert(alts, 0, append([]string{st.Label.Render("format ") + sanitize.Line(format)}, parts...))
		}
	}
	return alts
}
