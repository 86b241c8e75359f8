package record

import (
	"fmt"
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

func (k Kind) String() string {
	if int(k) < len(kindNames) {
		return kindNames[k]
	}
	return "unknown"
}

// MarshalText writes the kind's name, as records store it.
func (k Kind) MarshalText() ([]byte, error) { return []byte(k.String()), nil }

// UnmarshalText reads a kind's name.
func (k *Kind) UnmarshalText(b []byte) error {
	for i, n := range kindNames {
		if n == string(b) {
			*k = Kind(i)
			return nil
		}
	}
	return fmt.Errorf("frame kind %q is not one this drip knows (%s): a newer drip wrote it?", b, strings.Join(kindNames[:], ", "))
}

// Channel says which stream of output a content frame belongs to.
type Channel uint8

const (
	ChannelText      Channel = iota // answer text
	ChannelReasoning                // reasoning / thinking text
	ChannelTool                     // tool-call arguments
)

var channelNames = [...]string{"text", "reasoning", "tool"}

func (c Channel) String() string {
	if int(c) < len(channelNames) {
		return channelNames[c]
	}
	return "unknown"
}

// MarshalText writes the channel's name.
func (c Channel) MarshalText() ([]byte, error) { return []byte(c.String()), nil }

// UnmarshalText reads a channel's name.
func (c *Channel) UnmarshalText(b []byte) error {
	for i, n := range channelNames {
		if n == string(b) {
			*c = Channel(i)
			return nil
		}
	}
	return fmt.Errorf("channel %q is not one this drip knows (%s): a newer drip wrote it?", b, strings.Join(channelNames[:], ", "))
}
