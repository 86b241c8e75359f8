// Package config reads drip run's config file (--config drip.toml). The
// file holds what a CI job would otherwise spell as flags. That is the
// targets, headers (with ${ENV} expanded, never written anywhere), the
// workload and the gates. Every other key is a drip run flag's name, at
// the top or in a [request], [workload], [output] or [gates] table. A flag
// given on the command line wins over the file. Headers, in [headers] or
// as request.header, add to the command line's -H. A header that a -H
// names is the exception, and that -H wins.
//
//	targets = ["http://localhost:8000"]
//	model = "my-model"
//
//	[headers]
//	Authorization = "Bearer ${OPENAI_API_KEY}"
//
//	[workload]
//	runs = 30
//	concurrency = 4
//
//	[gates]
//	slo = "ttft<500ms,gap.p99<250ms"
//	fail-if = ["ttft.p95 > 800ms", "goodput < 90%"]
package config

import (
	"context"
	"errors"
	"fmt"
	"net/http"
	"os"
	"regexp"
	"slices"
	"strings"
	"time"

	"github.com/BurntSushi/toml"
	"github.com/spf13/pflag"
	"golang.org/x/net/http/httpguts"

	"github.com/driplab/drip/internal/cliconv"
	"github.com/driplab/drip/internal/userfile"
)

// kind is a config file as userfile reads it. Its limit is far above any
// file a person writes.
var kind = userfile.Kind{What: "a config file", Limit: 1 << 20}

var tables = []string{"request", "workload", "output", "gates"}

var envRef = regexp.MustCompile(`\$\{([A-Za-z_][A-Za-z0-9_]*)\}`)

// Apply sets every flag of fs the file at path names that the command
// line did not. It returns the URLs to run, which are args, else the
// file's targets. Every error names the file (and the line, where one set
// the key) and is a usage error.
func Apply(ctx context.Context, fs *pflag.FlagSet, path string, args []string) ([]string, error) {
	text, err := userfile.Read(ctx, path, kind, nil)
	if err != nil {
		return nil, fmt.Errorf("--config %w", err)
	}
	tree, err := parse(ctx, path, string(text))
	if err != nil {
		return nil, err
	}
	c := newFile(fs, path, string(text))
	targets, err := c.apply(tree)
	switch {
	case err != nil:
		return nil, err
	case len(args) > 0:
		return args, nil
	case len(targets) == 0:
		return nil, fmt.Errorf("--config %s: no targets: give a URL or targets = [\"http://…\"] in the file", path)
	}
	return targets, nil
}

// readTimeout bounds the parse of a file within the shape bounds, which
// takes milliseconds. It is a backstop should another shape cost the
// parser what nesting did.
const readTimeout = 10 * time.Second

// decodeTOML is the parser, a variable so a test can hold it.
var decodeTOML = toml.Decode

// parse checks text's shape and parses it, on a goroutine of its own so
// that a done ctx (SIGTERM) or readTimeout ends the wait. The parser takes
// no context. The goroutine left behind ends with the process.
func parse(ctx context.Context, path, text string) (map[string]any, error) {
	if err := checkShape(text); err != nil {
		var se *shapeError
		errors.As(err, &se)
		return nil, fmt.Errorf("--config %s:%d: %s: drip reads no config of this shape", path, se.line, se.what)
	}
	type result struct {
		tree map[string]any
		err  error
	}
	done := make(chan result, 1)
	decode := decodeTOML // read here, since a parse given up on may outlive a test's swap of it
	go func() {
		var tree map[string]any
		_, err := decode(text, &tree)
		done <- result{tree, err}
	}()
	timeout := time.NewTimer(readTimeout)
	defer timeout.Stop()
	var r result
	select {
	case r = <-done:
	case <-ctx.Done():
		return nil, ctx.Err()
	case <-timeout.C:
		return nil, fmt.Errorf("--config %s: still parsing after %v: drip reads no config of this shape", path, readTimeout)
	}
	var pe toml.ParseError
	switch {
	case errors.As(r.err, &pe):
		return nil, fmt.Errorf("--config %s:%d: %s", path, pe.Position.Line, pe.Message)
	case r.err != nil:
		return nil, fmt.Errorf("--config %s: %w", path, r.err)
	}
	return r.tree, nil
}

// file is one config file being applied to a flag set.
type file struct {
	path    string
	lines   []string
	fs      *pflag.FlagSet
	setBy   map[string]string // flag name → the key of the file that set it
	cmdLine map[string]bool   // the flags the command line set
	// the header names the command line's -H set, canonical. The file's
	// header of one of these names is dropped
	cmdHeader map[string]bool
	expanded  int // the bytes the headers' ${ENV} expanded to so far
}

func newFile(fs *pflag.FlagSet, path, text string) *file {
	c := &file{path: path, lines: strings.Split(text, "\n"), fs: fs, setBy: map[string]string{}, cmdLine: map[string]bool{}, cmdHeader: map[string]bool{}}
	// Taken before the file sets anything, because [headers] sets --header.
	// That flag is then Changed, though request.header must still add to it.
	fs.Visit(func(f *pflag.Flag) { c.cmdLine[f.Name] = true })
	if hs, err := fs.GetStringArray("header"); err == nil {
		for _, h := range hs {
			c.cmdHeader[headerName(h)] = true
		}
	}
	return c
}

// apply sets the flags the tree names and returns its targets.
func (c *file) apply(tree map[string]any) (targets []string, err error) {
	for _, key := range sortedKeys(tree) {
		v := tree[key]
		switch {
		case key == "targets":
			targets, err = c.strings(key, v)
		case key == "headers":
			err = c.headers(v)
		case slices.Contains(tables, key):
			err = c.table(key, v)
		default:
			err = c.set(key, key, v)
		}
		if err != nil {
			return nil, err
		}
	}
	return targets, nil
}

// table sets the flags one of the tables names.
func (c *file) table(key string, v any) error {
	t, ok := v.(map[string]any)
	if !ok {
		return c.errorf(key, "[%s] must be a table of drip run flags", key)
	}
	for _, k := range sortedKeys(t) {
		if err := c.set(key+"."+k, k, t[k]); err != nil {
			return err
		}
	}
	return nil
}

func headerName(h string) string {
	name, _, _ := strings.Cut(h, ":")
	return http.CanonicalHeaderKey(strings.TrimSpace(name))
}

var tableHeader = regexp.MustCompile(`^\s*\[\s*"?([^"\]]*?)"?\s*\]`)

// errorf names the line that sets key, looked for in key's own table
// (runs at the top and workload.runs are two lines), else as a dotted key
// or in an inline table (workload.runs = 3, workload = {runs = 3}). That
// is the first line assigning its name anywhere. Failing both, it names the file.
func (c *file) errorf(key, format string, a ...any) error {
	where := c.path
	if i := c.keyLine(key); i >= 0 {
		where = fmt.Sprintf("%s:%d", c.path, i+1)
	}
	return fmt.Errorf("--config %s: %s: %s", where, key, fmt.Sprintf(format, a...))
}

// keyLine is the index of the line that sets key, or -1.
func (c *file) keyLine(key string) int {
	table, name, _ := strings.Cut(key, ".")
	if name == "" {
		table, name = "", key
	}
	quoted := `"?` + regexp.QuoteMeta(name) + `"?\s*=`
	assign := regexp.MustCompile(`^\s*` + quoted)
	in := ""
	for i, l := range c.lines {
		m := tableHeader.FindStringSubmatch(l)
		if m != nil {
			in = m[1]
		}
		if m != nil && table == "" && in == name || m == nil && in == table && assign.MatchString(l) {
			return i
		}
	}
	anywhere := regexp.MustCompile(`(^|[\s.{,])` + quoted)
	for i, l := range c.lines {
		if tableHeader.FindStringSubmatch(l) == nil && anywhere.MatchString(l) {
			return i
		}
	}
	return -1
}

// set gives a flag the file's value unless the command line set it.
func (c *file) set(key, name string, v any) error {
	f := c.fs.Lookup(name)
	if f == nil || name == "config" || name == "help" {
		return c.errorf(key, "not a drip run flag (see drip run --help; headers go in [headers], URLs in targets)")
	}
	if first, ok := c.setBy[name]; ok {
		return c.errorf(key, "--%s is set twice in the file, as %s and as %s: keep one", name, first, key)
	}
	c.setBy[name] = key
	if c.cmdLine[name] && name != "header" {
		return nil // the command line wins
	}
	values, err := c.values(key, f, v)
	if err != nil {
		return err
	}
	for _, one := range values {
		if _, ok := one.(map[string]any); ok {
			return c.errorf(key, "want a value, not a table")
		}
		if name == "header" && c.cmdHeader[headerName(fmt.Sprint(one))] {
			continue // a -H of this name wins
		}
		if err := c.fs.Set(name, fmt.Sprint(one)); err != nil {
			return c.errorf(key, "%v", cliconv.PlainFlagValue(err))
		}
	}
	return nil
}

// values are the values v gives flag f, each set in turn. An array is one
// value per element for a repeatable flag. It is one comma list for a flag
// that takes one (its value type reads "N[,N...]", as -c's). Any other
// flag refuses it.
func (c *file) values(key string, f *pflag.Flag, v any) ([]any, error) {
	list, ok := v.([]any)
	switch {
	case !ok:
		return []any{v}, nil
	case strings.HasSuffix(f.Value.Type(), "...]"):
		parts := make([]string, len(list))
		for i, one := range list {
			parts[i] = fmt.Sprint(one)
		}
		return []any{strings.Join(parts, ",")}, nil // concurrency = [1, 2, 4] is -c 1,2,4
	case f.Value.Type() != "stringArray":
		return nil, c.errorf(key, "--%s takes one value", f.Name)
	}
	return list, nil
}

func (c *file) strings(key string, v any) ([]string, error) {
	list, ok := v.([]any)
	if !ok {
		list = []any{v}
	}
	var out []string
	for _, one := range list {
		s, ok := one.(string)
		if !ok {
			return nil, c.errorf(key, "want strings, got %v", one)
		}
		out = append(out, s)
	}
	return out, nil
}

// headers adds each Name = "value" as -H, with ${ENV} expanded, unless a
// -H names it. A variable that is not set is an error rather than an
// empty credential.
func (c *file) headers(v any) error {
	t, ok := v.(map[string]any)
	if !ok {
		return c.errorf("headers", "[headers] must be a table of Name = \"value\"")
	}
	for _, name := range sortedKeys(t) {
		s, ok := t[name].(string)
		if !ok {
			return c.errorf("headers."+name, "want a string")
		}
		if !httpguts.ValidHeaderFieldName(name) {
			// A key such as `"X-A: Authorization" = "…"` would send X-A
			// with the secret in a value nobody reads as one.
			return c.errorf("headers."+name, "not a valid header name (a token: no ':', space or separator)")
		}
		if c.cmdHeader[http.CanonicalHeaderKey(name)] {
			continue // a -H of this name wins, so its ${ENV} need not be set
		}
		s, err := c.expandEnv("headers."+name, s)
		if err != nil {
			return err
		}
		if err := c.fs.Set("header", name+": "+s); err != nil {
			return c.errorf("headers."+name, "%v", err)
		}
	}
	return nil
}

// expandEnv expands every ${NAME} in s, the value of key. A variable
// that is not set is an error. So are expansions past maxExpanded bytes
// over the whole file, counted before any is made (${BIG} 100,000 times
// in a 1 MiB file took 5.6 GB).
func (c *file) expandEnv(key, s string) (string, error) {
	var b strings.Builder
	for {
		r := envRef.FindStringIndex(s)
		if r == nil {
			break
		}
		v, ok := os.LookupEnv(s[r[0]+2 : r[1]-1])
		if !ok {
			return "", c.errorf(key, "%s is not set in the environment", s[r[0]:r[1]])
		}
		if c.expanded += r[0] + len(v); c.expanded > maxExpanded {
			return "", c.errorf(key, "${ENV} expands past 1 MiB in the file's headers: drip reads no config of this shape")
		}
		b.WriteString(s[:r[0]])
		b.WriteString(v)
		s = s[r[1]:]
	}
	c.expanded += len(s)
	b.WriteString(s)
	return b.String(), nil
}

func sortedKeys(m map[string]any) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
