package record

import (
	"fmt"
	"slices"
	"strings"
)

// Kind says what a frame is, as decided by the protocol adapter.
type Kind uint8

const (
	KindRaw     Kind = iota // a read no adapter claimed (generic raw mode)
	KindContent             // output text, reasoning text or tool-call arguments
	KindRole                // role-only or empty delta
	KindPing                // keepalive, SSE comment
	KindUsage               // token-count report
	KindMeta                // other metadata
	KindEnd                 // the format's end marker
	KindError               // an in-stream error event
)

var kindNames = [...]string{"raw", "content", "role", "ping", "usage", "meta", "end", "error"}

func (k Kind) String() string { return nameOf(kindNames[:], int(k)) }

// MarshalText writes the kind's name, as records store it.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a kind's name.
func (k *Kind) UnmarshalText(b []byte) error {
	i, err := parseName("frame kind", kindNames[:], b)
	if err == nil {
		*k = Kind(i)
	}
	return err
}

// Channel says which stream of output a content frame belongs to.
type Channel uint8

const (
	ChannelText      Channel = iota // answer text
	ChannelReasoning                // reasoning / thinking text
	ChannelTool                     // tool-call arguments
)

var channelNames = [...]string{"text", "reasoning", "tool"}

func (c Channel) String() string { return nameOf(channelNames[:], int(c)) }

// MarshalText writes the channel's name.
func (c Channel) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText reads a channel's name.
func (c *Channel) UnmarshalText(b []byte) error {
	i, err := parseName("channel", channelNames[:], b)
	if err == nil {
		*c = Channel(i)
	}
	return err
}

// nameOf is the i-th of an enum's names, "unknown" past them.
func nameOf(names []string, i int) string {
	if i < len(names) {
		return names[i]
	}
	return "unknown"
}

// parseName is the index of b among an enum's names. An unknown name is an
// error naming what (a newer drip may have written it).
func parseName(what string, names []string, b []byte) (int, error) {
	if i := slices.Index(names, string(b)); i >= 0 {
		return i, nil
	}
	return 0, fmt.Errorf("%s %q is not one this drip knows (%s): a newer drip wrote it?", what, b, strings.Join(names, ", "))
}
