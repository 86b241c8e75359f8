package tui

import (
	"charm.land/bubbles/v2/help"
	"charm.land/lipgloss/v2"

	"github.com/driplab/drip/views"
)

// Styles is the live view's look, the views' palette plus the chrome.
type Styles struct {
	Views views.Styles
	Help  help.Styles
	Rule  lipgloss.Style // the line after a panel title
}

// newStyles builds the styles for a dark or light background. Without
// colour only attributes (bold, reverse, faint) remain.
func newStyles(dark, color bool) Styles {
	s := Styles{Views: views.NewStyles(dark, color), Help: help.DefaultStyles(dark)}
	s.Rule = s.Views.Dim
	if !color {
		plain := lipgloss.NewStyle()
		s.Help = help.Styles{
			Ellipsis: plain, ShortKey: plain.Bold(true), ShortDesc: plain, ShortSeparator: plain.Faint(true),
			FullKey: plain.Bold(true), FullDesc: plain, FullSeparator: plain.Faint(true),
		}
	}
	return s
}
