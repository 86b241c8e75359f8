package textfmt

import "strings"

// markdownEscaper keeps text from being read as Markdown or HTML. A name
// like "a|b" must not split a table cell.
var markdownEscaper = strings.NewReplacer(
	`\`, `\\`, "`", "\\`", "*", `\*`, "_", `\_`, "[", `\[`, "]", `\]`,
	"<", "&lt;", ">", "&gt;", "|", `\|`, "#", `\#`, "~", `\~`,
)

// MarkdownCell escapes s to stand as plain text in a Markdown table cell
// or paragraph. It does not remove control bytes, so sanitize first.
func MarkdownCell(s string) string { return markdownEscaper.Replace(s) }
