package views

import (
	"image/color"

	"charm.land/lipgloss/v2"
)

// Styles is every style the views use. Build it with NewStyles; the zero
// value renders plain text.
type Styles struct {
	Title, TitleFocused lipgloss.Style // panel titles
	Label, Value, Dim   lipgloss.Style
	Undefined           lipgloss.Style // "—"

	// Frame marks on the timeline, by kind.
	Text, Reasoning, Tool, Role, Ping, Meta, End, Error, Burst lipgloss.Style
	Wait                                                       lipgloss.Style // before the first content
	Earlier                                                    lipgloss.Style // rows of earlier runs
	Stall, StallMid                                            lipgloss.Style // stall spans and markers
	Marker                                                     lipgloss.Style // TTFT and last-content markers

	Live, Done, Failed lipgloss.Style // header status

	// Shades of the heatmap, coolest first; the last one is a stall.
	Shades [4]lipgloss.Style

	// Color says whether plots drawn outside Lip Gloss may use colour.
	Color bool
}

// NewStyles returns the palette for a dark or light background. Without
// colour (NO_COLOR) stalls stay visible through reverse video and glyphs.
func NewStyles(dark, useColor bool) Styles {
	s := lipgloss.NewStyle
	if !useColor {
		return Styles{
			Title: s().Bold(true), TitleFocused: s().Bold(true).Reverse(true),
			Label: s(), Value: s().Bold(true), Dim: s().Faint(true), Undefined: s().Faint(true),
			Text: s(), Reasoning: s().Faint(true), Tool: s(), Role: s(), Ping: s().Faint(true),
			Meta: s(), End: s().Bold(true), Error: s().Bold(true).Reverse(true), Burst: s().Bold(true),
			Wait: s().Faint(true), Earlier: s().Faint(true),
			Stall: s().Underline(true), StallMid: s().Bold(true).Reverse(true), Marker: s().Bold(true),
			Live: s().Bold(true), Done: s().Bold(true), Failed: s().Bold(true).Reverse(true),
			Shades: [4]lipgloss.Style{s().Faint(true), s(), s().Bold(true), s().Bold(true).Reverse(true)},
		}
	}
	ld := lipgloss.LightDark(dark)
	c := func(light, dark string) color.Color { return ld(lipgloss.Color(light), lipgloss.Color(dark)) }
	var (
		fg     = c("#1f2328", "#e6edf3")
		dim    = c("#8c959f", "#6e7681")
		accent = c("#0550ae", "#79c0ff")
		green  = c("#116329", "#56d364")
		purple = c("#6639ba", "#d2a8ff")
		orange = c("#953800", "#ffa657")
		red    = c("#cf222e", "#ff7b72")
		yellow = c("#7d4e00", "#e3b341")
		redBG  = c("#ffebe9", "#5a1e1e")
	)
	return Styles{
		Color:        true,
		Title:        s().Bold(true).Foreground(accent),
		TitleFocused: s().Bold(true).Foreground(c("#ffffff", "#0d1117")).Background(accent),
		Label:        s().Foreground(dim),
		Value:        s().Bold(true).Foreground(fg),
		Dim:          s().Foreground(dim),
		Undefined:    s().Foreground(dim),
		Text:         s().Foreground(green),
		Reasoning:    s().Foreground(purple),
		Tool:         s().Foreground(accent),
		Role:         s().Foreground(dim),
		Ping:         s().Foreground(dim),
		Meta:         s().Foreground(yellow),
		End:          s().Bold(true).Foreground(fg),
		Error:        s().Bold(true).Foreground(red),
		Burst:        s().Bold(true).Foreground(orange),
		Wait:         s().Foreground(dim),
		Earlier:      s().Faint(true),
		Stall:        s().Foreground(yellow),
		StallMid:     s().Bold(true).Foreground(red).Background(redBG),
		Marker:       s().Bold(true).Foreground(accent),
		Live:         s().Bold(true).Foreground(yellow),
		Done:         s().Bold(true).Foreground(green),
		Failed:       s().Bold(true).Foreground(red),
		Shades: [4]lipgloss.Style{
			s().Foreground(c("#4ac26b", "#2ea043")),
			s().Foreground(c("#bf8700", "#d29922")),
			s().Foreground(orange),
			s().Bold(true).Foreground(red),
		},
	}
}
