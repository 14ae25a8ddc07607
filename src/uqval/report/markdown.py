r"""A small, safe markdown renderer for report text.

Every character of the input is HTML-escaped before any markup is added, so text such as
``<script>`` can only ever appear as text; raw HTML in the input is never passed through.
Supported: ATX headings (``#`` to ``######``, shifted by ``heading_offset``), paragraphs,
unordered (``-``, ``*``, ``+``) and ordered (``1.``) lists nested by indentation, fenced
code blocks (three backticks), block quotes (``>``), horizontal rules (``---``), pipe tables,
and inline ``**bold**``, ``*italics*``, ``_italics_``, backtick code spans and links
``[text](url)``, which are written as "text (url)" so that the page has no link to an
external resource. Backslash escapes of ASCII punctuation (``\*``, ``\<``, ``\|``) give the
character itself, as in CommonMark.

Untrusted text (column, feature and model names, dataset titles, citations and units from
YAML files) is put into Markdown through :func:`md_text` (or :func:`md_code`): control
characters removed, ``<`` and ``&`` written as the entities ``&lt;`` and ``&amp;`` (raw
HTML is then impossible in every Markdown flavour: Python-Markdown and the original
Markdown.pl do not treat ``\<`` as an escape and would pass ``\<script>`` on as HTML),
every other character that could start inline markup (emphasis, code, links, images, table
cells) backslash-escaped, and a leading block marker (``#``, ``>``, ``- ``, ``+ ``, ``1. ``)
escaped, so that a name such as ``<img src=x onerror=...>``, ``**x** | y`` or ``# x`` reads
as itself in any renderer (GitHub, Snakemake reports, MkDocs) and in this one, which decodes
entity references as CommonMark does.
"""

from __future__ import annotations

import html
import re

from uqval._internal.terminal import _CONTROL

__all__ = ["md_code", "md_plain", "md_text", "render_inline", "render_markdown"]

_MD_SPECIAL = re.compile(r"([\\`*_|~])")
_HTML_SPECIAL = {"&": "&amp;", "<": "&lt;"}  # ">" alone opens no tag (and reads as itself)
_LEADING_MARK = re.compile(r"^(\s*)(#|>|[+-](?=\s)|\d{1,9}(?=[.)](?:\s|$)))")


def md_text(value: object) -> str:
    r"""``value`` as literal Markdown text (module docstring).

    >>> print(md_text("<b>x</b> | *y* & z"))
    &lt;b>x&lt;/b> \| \*y\* &amp; z
    >>> render_inline(md_text("[a](http://e) **b**"))
    '[a](http://e) **b**'
    >>> print(md_text("# 1. x"))
    \# 1. x
    """
    text = "".join(_HTML_SPECIAL.get(c, c) for c in _CONTROL.sub("", str(value)))
    text = _MD_SPECIAL.sub(r"\\\1", text)
    mark = _LEADING_MARK.match(text)
    if mark:  # a block marker at the start of a line would make a heading or a list
        if mark.group(2)[0].isdigit():
            end = mark.end()
            text = f"{text[:end]}\\{text[end:]}"
        else:
            text = f"{mark.group(1)}\\{text[len(mark.group(1)):]}"
    # "[" starts a link only when "](" or "][" follows: plain intervals "[1.2, 1.5]" stay
    return text if not re.search(r"\](\(|\[)", text) else text.replace("[", "\\[")


def md_code(value: object) -> str:
    """``value`` as a Markdown code span, whatever backticks or pipes it holds.

    >>> md_code("a`b")
    '``a`b``'
    """
    text = _CONTROL.sub("", str(value)).replace("|", "\u00a6")  # a pipe would split a cell
    runs = [len(r) for r in re.findall("`+", text)]
    fence = "`" * (max(runs, default=0) + 1)
    pad = " " if text.startswith("`") or text.endswith("`") else ""
    return f"{fence}{pad}{text}{pad}{fence}"

def md_plain(markdown: str) -> str:
    r"""Markdown written by uqval as plain text for a terminal: backslash escapes give the
    character itself and ``**bold**`` markers are dropped (outside code spans, whose text is
    kept as written, backticks included); headings, lists and line breaks stay.
    Control characters are not removed here (the caller's printer does that).

    >>> print(md_plain(r"Across &lt;img src=x>: **not right** (`a\*b`); f\\_1 \[a](b)"))
    Across <img src=x>: not right (`a\*b`); f\_1 [a](b)
    """
    kept: list[str] = []

    def keep(text: str) -> str:
        kept.append(text)
        return f"\x00{len(kept) - 1}\x00"

    def plain(match: re.Match[str]) -> str:
        if match.group("esc") is not None:
            return keep(match.group("esc"))
        if match.group("ent") is not None:
            return keep(html.unescape(match.group("ent")))
        return keep(match.group(0))

    out = _ESCAPE_OR_CODE.sub(plain, markdown.replace("\x00", ""))
    out = out.replace("**", "")
    return re.sub(r"\x00(\d+)\x00", lambda m: kept[int(m.group(1))], out)


_HEADING = re.compile(r"^ {0,3}(#{1,6})\s+(.*?)(?:\s+#+)?\s*$")
_RULE = re.compile(r"^ {0,3}([-*_])(?:\s*\1){2,}\s*$")
_ITEM = re.compile(r"^(\s*)([-*+]|\d{1,9}[.)])\s+(.*)$")
_FENCE = re.compile(r"^ {0,3}(`{3,}|~{3,})")
_TABLE_RULE = re.compile(r"^\s*\|?\s*:?-+:?\s*(\|\s*:?-+:?\s*)*\|?\s*$")

_CODE = re.compile(r"(`+)(?!`)(.+?)(?<!`)\1(?!`)")
# one left-to-right pass: an escaped backtick never opens a code span, a backslash in a code
# span is text (CommonMark); an escaped character, an entity reference or a code span
_ESCAPE_OR_CODE = re.compile(
    r"\\(?P<esc>[!-/:-@\[-`{-~])"
    r"|(?P<ent>&(?:#[0-9]{1,7}|#[xX][0-9A-Fa-f]{1,6}|[A-Za-z][A-Za-z0-9]{1,31});)"
    r"|(?P<fence>`+)(?!`)(?P<code>.+?)(?<!`)(?P=fence)(?!`)")
_LINK = re.compile(r"\[([^\]]+)\]\(([^)\s]+)\)")
_BOLD = re.compile(r"\*\*(?=\S)(.+?)(?<=\S)\*\*|__(?=\S)(.+?)(?<=\S)__")
_ITALIC = re.compile(
    r"(?<![\w*])\*(?=[^\s*])(.+?)(?<=[^\s*])\*(?![\w*])|(?<!\w)_(?=\S)(.+?)(?<=\S)_(?!\w)"
)


def render_inline(text: str) -> str:
    """HTML of one line of inline markdown; all input text escaped."""
    codes: list[str] = []

    def keep(match: re.Match[str]) -> str:
        if match.group("esc") is not None:  # an escaped character: itself
            codes.append(html.escape(match.group("esc")))
            return f"\x00{len(codes) - 1}\x00"
        if match.group("ent") is not None:  # an entity reference: its character, as text
            codes.append(html.escape(html.unescape(match.group("ent"))))
            return f"\x00{len(codes) - 1}\x00"
        code = match.group("code")
        if len(code) > 2 and code.startswith(" ") and code.endswith(" "):
            code = code[1:-1]
        codes.append(f"<code>{html.escape(code)}</code>")
        return f"\x00{len(codes) - 1}\x00"

    out = _ESCAPE_OR_CODE.sub(keep, text.replace("\x00", ""))
    out = html.escape(out)
    out = _LINK.sub(r"\1 (\2)", out)
    out = _BOLD.sub(lambda m: f"<strong>{m.group(1) or m.group(2)}</strong>", out)
    out = _ITALIC.sub(lambda m: f"<em>{m.group(1) or m.group(2)}</em>", out)
    return re.sub(r"\x00(\d+)\x00", lambda m: codes[int(m.group(1))], out)


def _starts_block(line: str) -> bool:
    return bool(
        _HEADING.match(line)
        or _RULE.match(line)
        or _ITEM.match(line)
        or _FENCE.match(line)
        or line.lstrip().startswith((">", "|"))
    )


def _cells(row: str) -> list[str]:
    row = row.strip()
    row = row[1:] if row.startswith("|") else row
    row = row[:-1] if row.endswith("|") else row
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", row)]


def _table(lines: list[str]) -> str:
    header, rule, body = _cells(lines[0]), _cells(lines[1]), [_cells(r) for r in lines[2:]]
    aligns = []
    for cell in rule:
        right, left = cell.endswith(":"), cell.startswith(":")
        aligns.append("center" if left and right else "right" if right else "left")

    def row(cells: list[str], tag: str) -> str:
        padded = (cells + [""] * len(header))[: len(header)]
        return "<tr>" + "".join(
            f'<{tag} style="text-align:{a}">{render_inline(c)}</{tag}>'
            for c, a in zip(padded, aligns + ["left"] * len(header), strict=False)
        ) + "</tr>"

    rows = "".join(row(r, "td") for r in body)
    return f'<table class="md"><thead>{row(header, "th")}</thead><tbody>{rows}</tbody></table>'


def _list(items: list[tuple[int, bool, str]]) -> str:
    """Nested lists from (indent, ordered, text) items; deeper indent opens a sub-list."""
    out: list[str] = []
    stack: list[tuple[int, str]] = []
    for indent, ordered, text in items:
        tag = "ol" if ordered else "ul"
        while stack and indent < stack[-1][0]:
            out.append(f"</li></{stack.pop()[1]}>")
        if stack and indent == stack[-1][0] and tag != stack[-1][1]:
            out.append(f"</li></{stack.pop()[1]}>")  # same level, other kind: a new list
        if stack and indent == stack[-1][0]:
            out.append("</li>")
        else:
            out.append(f"<{tag}>")
            stack.append((indent, tag))
        out.append(f"<li>{render_inline(text)}")
    out.extend(f"</li></{tag}>" for _, tag in reversed(stack))
    return "".join(out)


def render_markdown(text: str, heading_offset: int = 0) -> str:
    """HTML of a markdown document (see the module docstring for what is supported).

    ``heading_offset`` shifts heading levels (1 turns ``#`` into ``<h2>``), capped at h6.
    """
    lines = text.replace("\r\n", "\n").replace("\r", "\n").expandtabs(4).split("\n")
    out: list[str] = []
    i, n = 0, len(lines)
    while i < n:
        line = lines[i]
        if not line.strip():
            i += 1
        elif fence := _FENCE.match(line):
            mark = fence.group(1)
            j = i + 1
            while j < n and not lines[j].strip().startswith(mark):
                j += 1
            code = "\n".join(lines[i + 1 : j])
            out.append(f"<pre><code>{html.escape(code)}</code></pre>")
            i = j + 1
        elif heading := _HEADING.match(line):
            level = min(6, len(heading.group(1)) + heading_offset)
            out.append(f"<h{level}>{render_inline(heading.group(2))}</h{level}>")
            i += 1
        elif _RULE.match(line):
            out.append("<hr>")
            i += 1
        elif line.lstrip().startswith("|") and i + 1 < n and _TABLE_RULE.match(lines[i + 1]):
            j = i + 2
            while j < n and lines[j].lstrip().startswith("|"):
                j += 1
            out.append(_table(lines[i:j]))
            i = j
        elif line.lstrip().startswith(">"):
            j = i
            while j < n and lines[j].lstrip().startswith(">"):
                j += 1
            inner = "\n".join(re.sub(r"^\s*>\s?", "", q) for q in lines[i:j])
            out.append(f"<blockquote>{render_markdown(inner, heading_offset)}</blockquote>")
            i = j
        elif _ITEM.match(line):
            items: list[tuple[int, bool, str]] = []
            while i < n:
                item = _ITEM.match(lines[i])
                if item:
                    ordered = item.group(2)[0].isdigit()
                    items.append((len(item.group(1)), ordered, item.group(3)))
                elif lines[i].strip() and not _starts_block(lines[i]):
                    indent, ordered, previous = items[-1]
                    items[-1] = (indent, ordered, f"{previous} {lines[i].strip()}")
                elif not lines[i].strip() and i + 1 < n and _ITEM.match(lines[i + 1]):
                    pass  # a blank line between items keeps the list going
                else:
                    break
                i += 1
            out.append(_list(items))
        else:
            j = i
            while j < n and lines[j].strip() and (j == i or not _starts_block(lines[j])):
                j += 1
            paragraph = " ".join(s.strip() for s in lines[i:j])
            out.append(f"<p>{render_inline(paragraph)}</p>")
            i = j
    return "\n".join(out)
