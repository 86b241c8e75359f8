package probe

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"math"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/driplab/drip/internal/userfile"
)

// DefaultPromptID names the one prompt of a command given none (-p,
// --prompt-file, --prompts). It is the same in run, watch and demo. Older
// records may say p0 or demo, and they read as any prompt id.
const DefaultPromptID = "default"

// Prompt is one prompt of a workload. Every record names it by ID.
type Prompt struct {
	ID        string
	Text      string
	MaxTokens int // 0 means the run's --max-tokens
}

// BuiltinPrompts is the set --prompts builtin sends. It holds a short
// question, a medium explanation and a long structured answer, so a run sees short,
// middling and long outputs from one endpoint.
func BuiltinPrompts() []Prompt {
	return []Prompt{
		{ID: "short", Text: "What is the capital of France? Answer in one word."},
		{ID: "medium", Text: "Explain in two short paragraphs why streamed responses can feel slow even when tokens per second look fine."},
		{ID: "long", Text: "Write a structured guide to measuring a streaming LLM endpoint: an introduction, five numbered sections (time to first token, gaps between tokens, stalls, throughput under load, coordinated omission), each with a heading, two paragraphs and a bulleted checklist, and a closing summary."},
	}
}

// ErrPromptFile reports a prompt file drip cannot use.
var ErrPromptFile = errors.New("bad prompt file")

// promptFile is the kind of file --prompt-file names. It is read whole, up
// to as much as a request body drip sends.
var promptFile = userfile.Kind{What: "a prompt file", Limit: 32 << 20}

// LoadPromptFile reads prompts from path, a regular file (userfile). A
// .jsonl file holds one {"id","prompt"[,"max_tokens"]} object per line.
// Any other file is one prompt, its ID the file's base name without
// extension.
func LoadPromptFile(ctx context.Context, path string) ([]Prompt, error) {
	b, err := userfile.Read(ctx, path, promptFile, nil)
	if err != nil {
		return nil, err
	}
	if strings.EqualFold(filepath.Ext(path), ".jsonl") {
		ps, err := ParsePromptsJSONL(bytes.NewReader(b))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", path, err)
		}
		return ps, nil
	}
	text := strings.TrimSpace(string(b))
	if text == "" {
		return nil, fmt.Errorf("%s: the file is empty: %w", path, ErrPromptFile)
	}
	id := strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))
	return []Prompt{{ID: id, Text: text}}, nil
}

// ParsePromptsJSONL reads {"id","prompt"[,"max_tokens"]} lines. Blank lines
// are skipped, and every other problem names its line.
func ParsePromptsJSONL(r io.Reader) ([]Prompt, error) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), 16<<20)
	var out []Prompt
	line := 0
	for sc.Scan() {
		line++
		b := bytes.TrimSpace(sc.Bytes())
		if len(b) == 0 {
			continue
		}
		var p struct {
			ID        *string `json:"id"`
			Prompt    *string `json:"prompt"`
			MaxTokens int     `json:"max_tokens"`
		}
		dec := json.NewDecoder(bytes.NewReader(b))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&p); err != nil {
			return nil, fmt.Errorf("line %d: %s (want {\"id\":…,\"prompt\":…[,\"max_tokens\":N]}): %w", line, promptLineErr(err), ErrPromptFile)
		}
		// Decode reads one value, so the rest of the line would be dropped.
		if dec.InputOffset() < int64(len(b)) {
			return nil, fmt.Errorf("line %d: more after the object (one object a line): %w", line, ErrPromptFile)
		}
		switch {
		case p.ID == nil || strings.TrimSpace(*p.ID) == "":
			return nil, fmt.Errorf("line %d: missing \"id\": %w", line, ErrPromptFile)
		case p.Prompt == nil || strings.TrimSpace(*p.Prompt) == "":
			return nil, fmt.Errorf("line %d: missing \"prompt\": %w", line, ErrPromptFile)
		case p.MaxTokens < 0:
			return nil, fmt.Errorf("line %d: negative \"max_tokens\": %w", line, ErrPromptFile)
		}
		out = append(out, Prompt{ID: *p.ID, Text: *p.Prompt, MaxTokens: p.MaxTokens})
	}
	if err := sc.Err(); errors.Is(err, bufio.ErrTooLong) {
		return nil, fmt.Errorf("line %d: longer than 16 MiB: %w", line+1, ErrPromptFile)
	} else if err != nil {
		return nil, fmt.Errorf("line %d: %w", line+1, err)
	}
	if len(out) == 0 {
		return nil, fmt.Errorf("no prompts: %w", ErrPromptFile)
	}
	return out, nil
}

// promptLineErr says what is wrong with a line in the file's words. It
// names a field of the wrong type by its name, not by Go's struct.
func promptLineErr(err error) string {
	var te *json.UnmarshalTypeError
	if !errors.As(err, &te) {
		return err.Error()
	}
	got := "a " + te.Value
	if strings.HasPrefix(te.Value, "a") || strings.HasPrefix(te.Value, "o") {
		got = "an " + te.Value // an array, an object
	}
	switch te.Field {
	case "":
		return got + ", not an object"
	case "max_tokens":
		return "\"max_tokens\" is " + got + maxTokensErr(te.Value)
	}
	return fmt.Sprintf("%q is %s, not a string", te.Field, got)
}

// maxTokensErr says why a JSON number is no int. It is a fraction, too
// large, or a whole number in another notation (1e3).
func maxTokensErr(value string) string {
	lit, ok := strings.CutPrefix(value, "number ")
	if !ok {
		return ", not a whole number"
	}
	f, err := strconv.ParseFloat(lit, 64)
	switch {
	case err != nil || math.Abs(f) >= math.MaxInt64:
		return ", a whole number out of range"
	case f != math.Trunc(f):
		return ", not a whole number"
	}
	return ": write it in digits, " + strconv.FormatFloat(f, 'f', -1, 64)
}

// CheckPromptIDs rejects a set whose IDs repeat, because records could not
// be told apart by prompt.
func CheckPromptIDs(ps []Prompt) error {
	seen := map[string]bool{}
	for _, p := range ps {
		if seen[p.ID] {
			return fmt.Errorf("prompt id %q appears twice: %w", p.ID, ErrPromptFile)
		}
		seen[p.ID] = true
	}
	return nil
}

// DefaultPrompt is the prompt of a command given none.
const DefaultPrompt = "Explain in three short paragraphs why streamed responses can feel slow even when tokens per second look fine."

// PromptSet is every prompt of -p (texts) and --prompt-file (files), in
// order. Texts are p1, p2, … and a text file is named by its base name.
// With neither, the set is DefaultPrompt, named DefaultPromptID. Its errors name the
// flags.
func PromptSet(ctx context.Context, texts, files []string) ([]Prompt, error) {
	var set []Prompt
	for i, p := range texts {
		set = append(set, Prompt{ID: fmt.Sprintf("p%d", i+1), Text: p})
	}
	for _, path := range files {
		ps, err := LoadPromptFile(ctx, path)
		if err != nil {
			return nil, fmt.Errorf("--prompt-file: %w", err)
		}
		set = append(set, ps...)
	}
	if len(set) == 0 {
		set = []Prompt{{ID: DefaultPromptID, Text: DefaultPrompt}}
	}
	if err := CheckPromptIDs(set); err != nil {
		// Name where ids come from, since a repeat may span -p and two files.
		return nil, fmt.Errorf("-p/--prompt-file: %w (ids: p1, p2, … for -p, a text file's name, a .jsonl line's \"id\"; each must differ)", err)
	}
	return set, nil
}
