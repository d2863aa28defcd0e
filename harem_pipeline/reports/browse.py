"""A run's alignments as static HTML: every gold and system entity marked in its text.

One page per document (``docs/NNNNN.html``) and an index of the documents
with their error counts; a stylesheet and a script beside them, no network.
Each entity is an element ``<span class="em" data-side="gold|system"
data-outcome="…" data-categ="…" data-tipo="…" data-csc="…" data-rec="…">``
(what ``stages.browse`` linked: ``data-rec`` the records, indices into the
page's record table, that hold it).  A click shows those records as the
``.avalida`` and the ``.emir`` have them and as the token view (``harem
align --show-tokens``) writes them; a toggle shows the occurrence numbers of
the markable tokens in the text itself.  Both sides are marked in the
collection's text (an entity crossing another is drawn in pieces sharing
one ``data-id``); a run's text that shares too little with it is shown
apart.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import dataclass
from html import escape
from urllib.parse import quote

from harem_pipeline.formats.alinhado import EVAL_CORRECT, EVAL_MISSING, EVAL_SPURIOUS
from harem_pipeline.stages.browse import (
    ERRORS,
    GOLD,
    MOVED,
    NO_RECORD,
    OMITTED,
    OUTCOMES,
    PARTIAL_DEFECT,
    PARTIAL_EXCESS,
    SHARED,
    SYSTEM,
    BrowseDocument,
    Mark,
    expand_references,
    numbered_tokens,
)

STYLE = """
body{font-family:system-ui,sans-serif;margin:0;color:#222;background:#fafafa}
header{position:sticky;top:0;background:#fff;border-bottom:1px solid #ddd;padding:.5rem 1rem;
z-index:2}
header h1{font-size:1.1rem;margin:0 0 .3rem 0}
.controls{display:flex;flex-wrap:wrap;gap:.3rem 1rem;font-size:.85rem;align-items:center}
.controls label{white-space:nowrap}
main{display:flex;gap:1rem;padding:1rem}
.text{flex:3;min-width:0;background:#fff;border:1px solid #ddd;padding:1rem;line-height:2.1;
white-space:pre-wrap;overflow-wrap:anywhere}
.text h2{font-size:.9rem;margin:0;color:#555;white-space:normal}
aside{flex:2;min-width:0;position:sticky;top:6rem;align-self:flex-start;max-height:80vh;overflow:auto;
background:#fff;border:1px solid #ddd;padding:.5rem 1rem;font-size:.8rem}
aside pre{white-space:pre-wrap;overflow-wrap:anywhere;background:#f5f5f5;padding:.3rem;
margin:.2rem 0 .6rem 0}
@media (max-width:900px){main{flex-direction:column;padding-bottom:42vh}
aside{position:fixed;top:auto;bottom:0;left:0;right:0;max-height:38vh;border-width:2px 0 0 0}}
.em{border-radius:3px;cursor:pointer;padding:0 1px}
.em[data-side=gold]{border-bottom:3px solid #888}
.em[data-side=system]{box-shadow:inset 0 -1.2em 0 0 rgba(0,0,0,.04);outline:1px dashed #888}
.em[data-outcome=Correcto]{border-color:#2e7d32;outline-color:#2e7d32;background:rgba(46,125,50,.10)}
.em[data-outcome^=Parcialmente]{border-color:#ef6c00;outline-color:#ef6c00;background:rgba(239,108,0,.14)}
.em[data-outcome=Em_Falta]{border-color:#c62828;background:rgba(198,40,40,.16)}
.em[data-outcome=Espurio]{outline-color:#6a1b9a;background:rgba(106,27,154,.14)}
.em[data-outcome=omitido],.em[data-outcome=sem_registo]{border-color:#bbb;outline-color:#bbb}
.em.dim{background:none!important;border-color:transparent!important;outline-color:transparent!important}
.em.linked{box-shadow:0 0 0 2px #1565c0}
sup.n{display:none;font-size:.65rem;color:#1565c0;font-weight:bold}
body.tokens sup.n{display:inline}
.alt{border-left:2px dotted #999;border-right:2px dotted #999}
.legend span{padding:0 .3rem;margin-right:.3rem}
table{border-collapse:collapse;font-size:.85rem;background:#fff}
th,td{border:1px solid #ddd;padding:.2rem .5rem;text-align:right}
th{background:#f3f3f3;position:sticky;top:0} td.name,th.name{text-align:left}
.page{padding:1rem} nav a{margin-right:1rem}
.note{background:#fff8e1;border-left:4px solid #f9a825;padding:.2rem .6rem;margin:.2rem 0;
font-size:.85rem}
"""

_CHOOSE_CATEGORY = """\
  // A category linked from the report that no entity here has is still the one
  // chosen (nothing is then shown), not silently "all".
  function choose(select, category) {
    if (!Array.prototype.some.call(select.options, function (o) { return o.value === category; })) {
      select.add(new Option(category, category));
    }
    select.value = category;
  }
  var wanted = /(?:^|[#&])cat=([^&]*)/.exec(location.hash);
"""
"""The category a link asks for (``#cat=``), chosen on both pages' category lists."""

SCRIPT = (
    """
(function () {
  var data = JSON.parse(document.getElementById('records').textContent);
  var ems = Array.prototype.slice.call(document.querySelectorAll('#text .em'));
  var panel = document.getElementById('panel');
  function apply() {
    var hidden = {};
    document.querySelectorAll('input[data-outcome]').forEach(function (box) {
      if (!box.checked) { hidden[box.getAttribute('data-outcome')] = true; }
    });
    var side = document.getElementById('side').value;
    var cat = document.getElementById('categ').value;
    ems.forEach(function (em) {
      var cats = (em.getAttribute('data-categ') || '').split('|');
      var show = !hidden[em.getAttribute('data-outcome')] &&
        (side === '' || em.getAttribute('data-side') === side) &&
        (cat === '' || cats.indexOf(cat) >= 0);
      em.classList.toggle('dim', !show);
    });
  }
  function show(em) {
    ems.forEach(function (other) { other.classList.remove('linked'); });
    var recs = (em.getAttribute('data-rec') || '').split(' ').filter(Boolean);
    var html = '<h3>' + em.getAttribute('data-side') + ': ' + em.getAttribute('data-outcome') +
      (em.hasAttribute('data-csc') ? ' (CSC ' + em.getAttribute('data-csc') + ')' : '') + '</h3>';
    if (!recs.length) { html += '<p>No record holds this entity.</p>'; }
    recs.forEach(function (r) {
      var rec = data[+r];
      html += '<div>.avalida</div><pre></pre><div>--show-tokens</div><pre></pre>';
      rec.emir.forEach(function () { html += '<div>.emir</div><pre></pre>'; });
      ems.forEach(function (other) {
        if ((' ' + other.getAttribute('data-rec') + ' ').indexOf(' ' + r + ' ') >= 0) {
          other.classList.add('linked');
        }
      });
    });
    panel.innerHTML = html;
    var pres = panel.querySelectorAll('pre'), i = 0;
    recs.forEach(function (r) {
      var rec = data[+r];
      pres[i++].textContent = rec.avalida;
      pres[i++].textContent = rec.tokens;
      rec.emir.forEach(function (line) { pres[i++].textContent = line; });
    });
  }
  ems.forEach(function (em) {
    em.addEventListener('click', function (event) { event.stopPropagation(); show(em); });
  });
  document.querySelectorAll('.controls input, .controls select').forEach(function (c) {
    c.addEventListener('change', apply);
  });
  document.getElementById('tokens').addEventListener('change', function (event) {
    document.body.classList.toggle('tokens', event.target.checked);
  });
"""
    + _CHOOSE_CATEGORY
    + """  if (wanted) { choose(document.getElementById('categ'), decodeURIComponent(wanted[1])); }
  apply();
})();
"""
)

INDEX_SCRIPT = (
    """
(function () {
  var select = document.getElementById('categ');
  function apply() {
    var cat = select.value;
    document.querySelectorAll('tr[data-cats]').forEach(function (row) {
      var cats = row.getAttribute('data-cats').split(' ');
      row.hidden = cat !== '' && cats.indexOf(cat) < 0;
      var link = row.querySelector('a');
      link.href = link.getAttribute('data-href') + (cat ? '#cat=' + encodeURIComponent(cat) : '');
    });
  }
"""
    + _CHOOSE_CATEGORY
    + """  if (wanted) { choose(select, decodeURIComponent(wanted[1])); }
  select.addEventListener('change', apply);
  apply();
})();
"""
)

OUTCOME_LABELS = {
    EVAL_CORRECT: "Correcto",
    PARTIAL_EXCESS: "Parcialmente Correcto por Excesso",
    PARTIAL_DEFECT: "Parcialmente Correcto por Defeito",
    EVAL_MISSING: "Em Falta",
    EVAL_SPURIOUS: "Espúrio",
    NO_RECORD: "Sem registo",
    OMITTED: "Omitido",
}


LEGEND = (
    '<div class="controls legend">'
    '<span class="em" data-side="gold" data-outcome="Correcto">CD (sublinhado)</span>'
    '<span class="em" data-side="system" data-outcome="Correcto">sistema (tracejado)</span>'
    '<span class="em" data-side="gold" data-outcome="Correcto">Correcto</span>'
    '<span class="em" data-side="gold" data-outcome="Parcialmente_Correcto_por_Defeito">'
    "Parcialmente Correcto</span>"
    '<span class="em" data-side="gold" data-outcome="Em_Falta">Em Falta</span>'
    '<span class="em" data-side="system" data-outcome="Espurio">Espúrio</span>'
    '<span class="em" data-side="gold" data-outcome="omitido">omitido / sem registo</span></div>'
)


def _page(title: str, body: str, script: str, depth: int) -> str:
    up = "../" * depth
    return (
        '<!DOCTYPE html>\n<html lang="pt"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title>"
        f'<link rel="stylesheet" href="{up}browse.css"></head>\n<body>\n{body}\n'
        f'<script src="{up}{script}"></script>\n</body></html>\n'
    )


def _shown(text: str, xml: bool) -> str:
    return escape(expand_references(text, xml))


def _open_tag(mark: Mark, ident: str) -> str:
    attributes = [
        f'class="em" data-id="{ident}" data-side="{mark.side}"',
        f'data-outcome="{mark.outcome}"',
        f'data-categ="{escape("|".join(mark.categories))}"',
    ]
    if mark.types:
        attributes.append(f'data-tipo="{escape("|".join(mark.types))}"')
    if mark.csc is not None:
        attributes.append(f'data-csc="{mark.csc:.4g}"')
    attributes.append(f'data-rec="{" ".join(map(str, mark.records))}"')
    title = f"{mark.side}: {'|'.join(mark.categories)} {OUTCOME_LABELS[mark.outcome]}"
    attributes.append(f'title="{escape(title)}"')
    return "<span " + " ".join(attributes) + ">"


def _token_numbers(mark: Mark, text: str, xml: bool) -> list[tuple[int, str]]:
    """``(offset, number)`` after each numbered token of ``mark`` in the raw ``text``."""
    if not mark.numbered:
        return []
    found = []
    cursor = mark.start
    for number, token in numbered_tokens(mark.numbered):
        # a token is letters or a digit: written alike in the raw text
        at = text.find(token, cursor, mark.end)
        if at < 0:  # written with a character reference (caf&#233;): no number shown
            continue
        cursor = at + len(token)
        found.append((cursor, number))
    return found


def render_text(text: str, marks: Sequence[tuple[str, Mark]], xml: bool) -> str:
    """``text`` with every mark an element; crossing marks are cut into pieces.

    ``marks`` are ``(data-id, mark)``.  Elements open longest first at one
    offset; when one must close under another still open, the ones above
    are closed and reopened after it.
    """
    opens: dict[int, list[tuple[str, Mark]]] = {}
    closes: dict[int, list[str]] = {}
    numbers: dict[int, list[str]] = {}
    for ident, mark in marks:
        opens.setdefault(mark.start, []).append((ident, mark))
        closes.setdefault(mark.end, []).append(ident)
        for offset, number in _token_numbers(mark, text, xml):
            numbers.setdefault(offset, [])
            if number not in numbers[offset]:
                numbers[offset].append(number)
    cuts = sorted({0, len(text), *opens, *closes, *numbers})
    out: list[str] = []
    stack: list[tuple[str, Mark]] = []
    for here, after in zip(cuts, cuts[1:] + [None], strict=True):
        ending = set(closes.get(here, ())) & {ident for ident, _mark in stack}
        if ending:
            kept = [(ident, mark) for ident, mark in stack if ident not in ending]
            lowest = min(i for i, (ident, _mark) in enumerate(stack) if ident in ending)
            out.append("</span>" * (len(stack) - lowest))
            stack = kept[:lowest]
            for ident, mark in kept[lowest:]:
                out.append(_open_tag(mark, ident))
                stack.append((ident, mark))
        for number in numbers.get(here, ()):
            out.append(f'<sup class="n">{number}</sup>')
        for ident, mark in sorted(opens.get(here, ()), key=lambda item: -item[1].end):
            out.append(_open_tag(mark, ident))
            if mark.end == here:  # an entity with no text: an empty element
                out.append("</span>")
                continue
            stack.append((ident, mark))
        if after is not None:
            out.append(_shown(text[here:after], xml))
    out.append("</span>" * len(stack))
    return "".join(out)


SIMULATED_NOTE = "SIMULATED run (harem simulate): not any real system's output."


def _note(note: str) -> str:
    return f'<div class="note">{escape(note)}</div>' if note else ""


def _controls(categories: Sequence[str], index: bool = False) -> str:
    options = "".join(f'<option value="{escape(c)}">{escape(c)}</option>' for c in categories)
    select = (
        '<label>Categoria <select id="categ"><option value="">todas</option>'
        f"{options}</select></label>"
    )
    if index:
        return f'<div class="controls">{select}</div>'
    boxes = "".join(
        f'<label><input type="checkbox" data-outcome="{kind}" checked> '
        f"{OUTCOME_LABELS[kind]}</label>"
        for kind in (*OUTCOMES, OMITTED)
    )
    side = (
        '<label>Lado <select id="side"><option value="">ambos</option>'
        '<option value="gold">CD</option><option value="system">sistema</option></select></label>'
    )
    tokens = '<label><input type="checkbox" id="tokens"> números dos átomos (--show-tokens)</label>'
    return f'<div class="controls">{boxes}{side}{select}{tokens}</div>'


def render_document_page(
    doc: BrowseDocument, run: str, position: int, total: int, note: str = ""
) -> str:
    """The page of one document (``docs/NNNNN.html``)."""
    idents = [(f"{'g' if m.side == GOLD else 's'}{i}", m) for i, m in enumerate(doc.marks)]
    if doc.placement == SHARED:
        texts = render_text(doc.gold_text, idents, doc.xml)
    elif doc.placement == MOVED:
        texts = (
            "<h2>O texto do sistema difere do da CD: as suas entidades são mostradas no "
            "texto da CD, nas palavras que os dois textos partilham</h2>"
            + render_text(doc.gold_text, idents, doc.xml)
        )
    else:
        gold = [(ident, m) for ident, m in idents if m.side == GOLD]
        system = [(ident, m) for ident, m in idents if m.side == SYSTEM]
        texts = (
            "<h2>Colecção dourada</h2>"
            + render_text(doc.gold_text, gold, doc.xml)
            + "<h2>Saída do sistema (o texto difere do da CD)</h2>"
            + render_text(doc.system_text, system, doc.xml)
        )
    categories = sorted({c for m in doc.marks for c in m.categories})
    counts = doc.counts()
    summary = ", ".join(
        f"{OUTCOME_LABELS[k]}: {counts[k]}" for k in (*OUTCOMES, OMITTED) if counts[k]
    )
    nav = ['<a href="../index.html">índice</a>']
    if position > 0:
        nav.append(f'<a href="{page_name(position - 1)}">anterior</a>')
    if position + 1 < total:
        nav.append(f'<a href="{page_name(position + 1)}">seguinte</a>')
    records = json.dumps(
        [{"avalida": r.avalida, "tokens": r.tokens, "emir": list(r.emir)} for r in doc.records],
        ensure_ascii=False,
    ).replace("</", "<\\/")
    body = (
        f"<header><h1>{escape(doc.docid)} <small>({escape(run)})</small></h1>"
        f"<nav>{''.join(nav)}</nav>"
        f'<div class="muted">CD: {counts[GOLD]} EM, sistema: {counts[SYSTEM]} EM; {escape(summary)}'
        f"</div>{_note(note)}{_controls(categories)}{LEGEND}</header>\n"
        f'<main><div class="text" id="text">{texts}</div>'
        '<aside id="panel"><p>Clique numa entidade para ver os seus registos.</p></aside></main>\n'
        f'<script type="application/json" id="records">{records}</script>'
    )
    return _page(f"{doc.docid} — {run}", body, "browse.js", depth=1)


def page_name(position: int) -> str:
    """The file name of the ``position``-th document's page, inside ``docs/``."""
    return f"{position:05d}.html"


@dataclass(frozen=True, slots=True)
class IndexRow:
    """One document in the index: its page, counts and error categories."""

    docid: str
    page: str
    counts: dict[str, int]
    error_categories: tuple[str, ...]


def index_row(doc: BrowseDocument, position: int) -> IndexRow:
    return IndexRow(doc.docid, "docs/" + page_name(position), doc.counts(), doc.error_categories())


def render_index(rows: Sequence[IndexRow], run: str, note: str = "") -> str:
    """The index page: every document with its error counts, filterable by category."""
    categories = sorted({c for row in rows for c in row.error_categories})
    columns = (
        GOLD,
        SYSTEM,
        EVAL_CORRECT,
        PARTIAL_EXCESS,
        PARTIAL_DEFECT,
        EVAL_MISSING,
        EVAL_SPURIOUS,
    )
    names = {GOLD: "EM na CD", SYSTEM: "EM do sistema", **OUTCOME_LABELS}
    head = '<th class="name">Documento</th>' + "".join(f"<th>{names[c]}</th>" for c in columns)
    head += "<th>Erros</th>"
    body_rows = []
    total = dict.fromkeys(columns, 0)
    for row in rows:
        errors = sum(row.counts[c] for c in ERRORS)
        for c in columns:
            total[c] += row.counts[c]
        cells = "".join(f"<td>{row.counts[c]}</td>" for c in columns)
        body_rows.append(
            f'<tr data-cats="{escape(" ".join(row.error_categories))}">'
            f'<td class="name"><a href="{row.page}" data-href="{row.page}">'
            f"{escape(row.docid)}</a></td>"
            f"{cells}<td>{errors}</td></tr>"
        )
    totals = "".join(f"<td>{total[c]}</td>" for c in columns)
    body = (
        f'<div class="page"><h1>Alinhamentos de {escape(run)}</h1>'
        f"{_note(note)}"
        f'<p class="muted">{len(rows)} documentos. Cada página mostra o texto com as '
        "entidades da CD (sublinhadas) e do sistema (tracejadas), coloridas pelo veredicto do "
        "AvalIDa; um clique mostra os registos. Erros: as entidades, da CD e do sistema, "
        "parcialmente correctas, em falta ou espúrias (uma parcial conta nos dois lados).</p>"
        f"{_controls(categories, index=True)}"
        f'<div style="overflow-x:auto"><table id="documents"><thead><tr>{head}</tr></thead>'
        f"<tbody>{''.join(body_rows)}</tbody>"
        f'<tfoot><tr><td class="name">Total</td>{totals}'
        f"<td>{sum(total[c] for c in ERRORS)}</td></tr></tfoot></table></div></div>"
    )
    return _page(f"Alinhamentos — {run}", body, "browse-index.js", depth=0)


def browse_href(run: str, category: str | None = None) -> str:
    """The link from a campaign's ``report.html`` to a run's pages (``harem browse OUT/<run>``)."""
    link = f"{quote(run)}/browse/index.html"
    return link + (f"#cat={quote(category)}" if category else "")
