"""The graph explorer in real headless Chromium, one browser for the module (DevTools protocol), the network
blocked: search -> details with the evidence span, type filter, focus, time slider, click-through and back,
a click on the canvas, hostile names as text; and the notebook widget's selection reaching Python.
Screenshots go to $KGKIT_ARTEFACTS (default bench/out/)."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from cdp_tools import Browser, Page
from explorer_graphs import ADA_SENTENCE, XSS, small_graph

from kgkit.views.explorer import explorer_esm, explorer_payload, payload_json
from kgkit.views.graph_page import graph_html

pytestmark = [pytest.mark.slow, pytest.mark.browser, pytest.mark.timeout(300)]

ROOT = Path(__file__).resolve().parents[1]
READY = "document.body.dataset.kgDrawn === '1'"


def artefacts() -> Path:
    out = Path(os.environ.get("KGKIT_ARTEFACTS", ROOT / "bench" / "out"))
    out.mkdir(parents=True, exist_ok=True)
    return out


@pytest.fixture(scope="module")
def browser(chromium: str):
    with Browser(chromium, size=(1400, 900)) as b:
        yield b


@pytest.fixture(scope="module")
def page_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("explorer") / "graph.html"
    path.write_text(graph_html(small_graph(), title="Letters <i>1843</i>"), encoding="utf-8")
    return path


@pytest.fixture
def page(browser: Browser, page_file: Path):
    p = browser.open(page_file.as_uri())
    p.wait_for(READY)
    yield p
    assert p.eval("document.body.hasAttribute('data-pwned')") is False, "document text ran as code"
    browser.close_page(p)


# what the renderer draws: sigma's display data (after the reducers), not the explorer's own bookkeeping
def shown_nodes(p: Page) -> list[str]:
    return sorted(p.eval("(() => { const r = kgExplorer.renderer;"
                         " return r.getGraph().nodes().filter((n) => !r.getNodeDisplayData(n).hidden); })()"))


def shown_edges(p: Page) -> list[str]:
    return sorted(p.eval("(() => { const r = kgExplorer.renderer;"
                         " return r.getGraph().edges().filter((e) => !r.getEdgeDisplayData(e).hidden); })()"))


def on_screen(p: Page, entity: str, root: str = "kgExplorer") -> tuple[float, float]:
    """Where the renderer draws `entity`, in page pixels."""
    return tuple(p.eval(f"""(() => {{ const r = {root}.renderer;
        const at = r.graphToViewport(r.getGraph().getNodeAttributes({json.dumps(entity)}));
        const box = r.getContainer().getBoundingClientRect(); return [box.left + at.x, box.top + at.y]; }})()"""))


def details_text(p: Page) -> str:
    return p.eval("document.querySelector('[data-role=details]').innerText")


def search(p: Page, text: str) -> list[str]:
    p.click("[data-role=search]")
    p.type_text(text)
    return p.eval("[...document.querySelectorAll('[data-role=suggestions] button')].map((b) => b.textContent)")


def test_search_by_alias_opens_details_with_the_evidence_span(page: Page) -> None:
    assert search(page, "countess") == ["Countess of Lovelace alias of Ada Lovelace · Person"]
    page.click("[data-role=suggestions] button")
    assert page.eval("document.querySelector('[data-role=details] h2').textContent") == "Ada Lovelace"
    marks = page.eval("[...document.querySelectorAll('[data-role=mentions] mark')].map((m) => m.textContent)")
    assert marks == ["Ada Lovelace", "Ada Lovelace"]  # the mention's own span, inside the relation's sentence
    quote = page.eval("document.querySelector('[data-role=mentions] blockquote').textContent")
    assert quote == ADA_SENTENCE
    text = details_text(page)
    assert "letters/ada.txt" in text and "notes/engine <b>notes</b>.txt" in text  # documents by name, as text
    assert "doc:letters" not in text  # hash ids only in tooltips
    assert page.eval("document.querySelector('.kgx').dataset.selected") == "entity:Person:ada"
    page.screenshot(artefacts() / "test_explorer_details.png")


def test_relation_click_through_and_back(page: Page) -> None:
    assert page.eval("kgExplorer.selectEntity('Person:ada')") is True
    page.click("[data-relation='rel:wrote'] [data-action=relation]")
    assert page.eval("document.querySelector('.kgx').dataset.selected") == "relation:rel:wrote"
    marks = page.eval("[...document.querySelectorAll('[data-role=details] blockquote mark')].map((m) => m.textContent)")
    assert marks == ["Ada Lovelace", "Charles Babbage"]
    text = details_text(page)
    assert "valid from\n1843-01-01" in text and "letters/ada.txt" in text and "0.80" in text
    page.click("[data-role=details] h2 [data-entity='Person:babbage']")
    assert page.eval("document.querySelector('[data-role=details] h2').textContent") == "Charles Babbage"
    assert page.eval("document.querySelector('[data-relation=\"rel:member\"] .kgx-flag') !== null")  # flagged
    page.click("[data-action=back]")
    assert page.eval("document.querySelector('.kgx').dataset.selected") == "relation:rel:wrote"
    page.click("[data-action=back]")
    assert page.eval("document.querySelector('.kgx').dataset.selected") == "entity:Person:ada"


def test_type_filter_hides_its_entities_and_their_relations(page: Page) -> None:
    assert len(shown_nodes(page)) == 6 and len(shown_edges(page)) == 6
    page.click("[data-filter=type][data-value=Location]")
    assert "Location:london" not in shown_nodes(page) and len(shown_nodes(page)) == 5
    assert shown_edges(page) == ["rel:co", "rel:designed", "rel:member", "rel:wrote"]
    page.click("[data-filter=hide-weak]")
    assert shown_edges(page) == ["rel:designed", "rel:member", "rel:wrote"]
    page.click("[data-filter=review]")  # only relations needing review, and their entities
    assert shown_nodes(page) == ["Organization:rs", "Person:babbage"]
    assert page.eval("document.querySelector('.kgx').dataset.visibleNodes") == "2"


def test_focus_shows_the_neighbourhood_and_expands_on_double_click(page: Page) -> None:
    page.eval("kgExplorer.selectEntity('Location:london')")
    page.click("[data-action=focus]")
    assert shown_nodes(page) == ["Location:london", "Person:ada", "Person:xss"]
    assert shown_edges(page) == ["rel:lived", "rel:xss"]
    page.eval("document.querySelector('[data-role=hops]').value = '2'")
    page.click("[data-action=focus]")
    assert shown_nodes(page) == ["Location:london", "Person:ada", "Person:babbage", "Person:xss", "Product:engine"]
    page.click("[data-action=show-all]")
    assert len(shown_nodes(page)) == 6


def test_time_slider_hides_relations_not_valid_at_the_date(page: Page) -> None:
    steps = page.eval("[...document.querySelectorAll('[data-filter=time]')].map((r) => [r.min, r.max, r.value])")
    assert steps == [["0", "4", "4"]]  # 1816, 1835, 1843, 1852 and "all dates"

    def at(index: int) -> list[str]:
        page.eval(f"(() => {{ const r = document.querySelector('[data-filter=time]'); r.value = '{index}';"
                  " r.dispatchEvent(new Event('input', {bubbles: true})); })()")
        return shown_edges(page)

    assert "rel:lived" in at(2)  # 1843: Ada lives in London, has written to Babbage
    assert "rel:wrote" in at(2)
    assert "rel:lived" not in at(3)  # 1852-11-27: no longer
    assert at(0) == ["rel:co", "rel:designed", "rel:member", "rel:xss"]  # 1816: before Ada's relations
    assert "1816-01-01" in page.eval("document.querySelector('[data-filter=time]').parentElement.textContent")
    assert len(at(4)) == 6


def test_a_click_on_the_canvas_selects_the_entity(page: Page) -> None:
    x, y = on_screen(page, "Product:engine")
    page.click_at(x, y)
    assert page.eval("document.querySelector('[data-role=details] h2').textContent") == "Analytical Engine"


def test_hostile_names_render_as_text(page: Page) -> None:
    search(page, "img src")
    page.click("[data-role=suggestions] button")
    assert page.eval("document.querySelector('[data-role=details] h2').textContent") == XSS
    page.click("[data-relation='rel:xss'] [data-action=relation]")
    assert "</script><script>" in page.eval("document.querySelector('[data-role=details] blockquote').textContent")
    assert page.eval("document.querySelectorAll('.kgx img, .kgx script, .kgx b, .kgx i').length") == 0
    assert page.eval("document.querySelector('.kgx h1').textContent") == "Letters <i>1843</i>"
    assert page.eval("document.title") == "Letters <i>1843</i>"


WIDGET_HARNESS = """<!DOCTYPE html><html><head><meta charset="utf-8"></head><body style="margin:8px">
<div id="w"></div>
<script type="application/json" id="state">__STATE__</script>
<script type="module">
__ESM__
const state = JSON.parse(document.getElementById("state").textContent);
const on = {};
globalThis.saves = [];
const model = {
  get: (k) => state[k],
  set: (k, v) => { state[k] = v; (on["change:" + k] || []).forEach((f) => f()); },
  on: (e, f) => { (on[e] = on[e] || []).push(f); }, off: () => {},
  save_changes: () => { globalThis.saves.push({ selected: state.selected }); },
};
globalThis.model = model;
const widget = __DEFAULT__;
widget.render({ model, el: document.getElementById("w") });
document.body.setAttribute("data-kg-drawn", "1");
</script></body></html>"""


def test_widget_selection_reaches_python(browser: Browser, tmp_path: Path) -> None:
    from kgkit.views.widgets import Explorer

    widget = Explorer.from_graph(small_graph(), height="500px")
    esm = explorer_esm()
    assert esm.count("export default {") == 1
    state = {"payload": widget.payload, "selected": [], "height": widget.height}
    harness = (WIDGET_HARNESS.replace("__STATE__", payload_json(state))
               .replace("__ESM__", esm.replace("export default {", "const explorerWidget = {"))
               .replace("__DEFAULT__", "explorerWidget"))
    path = tmp_path / "widget.html"
    path.write_text(harness, encoding="utf-8")
    page = browser.open(path.as_uri())
    page.wait_for(READY)
    page.wait_for("document.querySelector('.kgx').dataset.kgReady === '1'")
    # a real click on a node in the canvas; what save_changes sends is what a comm message sets in Python
    x, y = on_screen(page, "Person:babbage", "document.querySelector('.kgx').kgExplorer")
    page.click_at(x, y)
    saves = page.eval("globalThis.saves")
    assert saves and saves[-1] == {"selected": ["Person:babbage"]}
    widget.set_state(saves[-1])
    assert widget.selected == ["Person:babbage"]
    # and back: Python selects an entity, the explorer shows it
    widget.selected = ["Location:london"]
    page.eval(f"globalThis.model.set('selected', {json.dumps(widget.selected)})")
    assert page.eval("document.querySelector('[data-role=details] h2').textContent") == "London"
    page.screenshot(artefacts() / "test_explorer_widget.png")
    browser.close_page(page)


def test_payload_of_the_page_is_the_payload_function(page_file: Path) -> None:
    text = page_file.read_text(encoding="utf-8")
    assert payload_json(explorer_payload(small_graph(), title="Letters <i>1843</i>")) in text


def test_path_between_two_entities(page: Page) -> None:
    page.eval("kgExplorer.selectEntity('Organization:rs')")
    page.click("[data-action=path]")
    search(page, "London")
    page.click("[data-role=suggestions] button")
    assert shown_nodes(page) == ["Location:london", "Organization:rs", "Person:ada", "Person:babbage"]
    assert shown_edges(page) == ["rel:lived", "rel:member", "rel:wrote"]
    assert "Royal Society \u2192 Charles Babbage \u2192 Ada Lovelace \u2192 London" in page.eval(
        "document.querySelector('[data-role=banner]').textContent")


def test_merge_preview_page_shows_the_change(browser: Browser, tmp_path: Path) -> None:
    from kgkit.core.decisions import person_decision
    from kgkit.views.explorer import explorer_page, merge_preview_payload

    merge = person_decision("merge", ("Person:xss", "Person:babbage"), who="t")
    path = tmp_path / "preview.html"
    path.write_text(explorer_page(merge_preview_payload(small_graph(), [merge])), encoding="utf-8")
    p = browser.open(path.as_uri())
    p.wait_for(READY)
    p.eval("kgExplorer.selectEntity('Person:xss')")
    assert "change\nremoved" in details_text(p)
    legend = p.eval("document.querySelector('[data-role=legend]').textContent")
    assert "removed (1)" in legend and "kept (5)" in legend
    assert p.eval("document.body.hasAttribute('data-pwned')") is False
    browser.close_page(p)


def test_keyboard_search(page: Page) -> None:
    assert search(page, "l")[:2] == ["London · Location", "Ada Lovelace · Person"]  # prefix, then word prefix
    page.press("ArrowDown")
    page.press("ArrowDown")
    page.press("Enter")  # the second suggestion
    assert page.eval("document.querySelector('[data-role=details] h2').textContent") == "Ada Lovelace"


def test_svg_export_holds_what_is_shown_as_text(page: Page) -> None:
    page.click("[data-filter=type][data-value=Location]")
    svg = page.eval("kgExplorer.svg()")
    assert svg.startswith("<svg") and svg.count("<circle") == 5 and svg.count("<line") == 4
    assert "&lt;img src=x onerror" in svg and "<img" not in svg  # the hostile name, escaped by the serialiser


def test_png_export_holds_the_drawn_graph(page: Page) -> None:
    # every layer (WebGL and 2-D) copied onto one white canvas: the entities' colours are in the picture
    counts = page.eval("""(async () => {
        const img = new Image(); img.src = kgExplorer.png(); await img.decode();
        const c = document.createElement('canvas'); c.width = img.width; c.height = img.height;
        const ctx = c.getContext('2d'); ctx.drawImage(img, 0, 0);
        const px = ctx.getImageData(0, 0, c.width, c.height).data;
        let person = 0, white = 0;
        for (let i = 0; i < px.length; i += 4) {
          if (px[i] === 0 && px[i + 1] === 0x72 && px[i + 2] === 0xB2) person++;
          if (px[i] === 255 && px[i + 1] === 255 && px[i + 2] === 255) white++;
        }
        return [person, white, px.length / 4]; })()""")
    person, white, total = counts
    assert person > 500, counts  # Person (#0072B2) discs: three of them
    assert white > total / 2, counts  # on white, not on a transparent or black background


def test_dragging_moves_the_view_and_it_is_drawn_again(page: Page) -> None:
    x, y = on_screen(page, "Product:engine")
    box = page.eval("(() => { const b = document.querySelector('.kgx-canvas').getBoundingClientRect();"
                    " return [b.left + 30, b.top + 30]; })()")
    renders = page.eval("kgExplorer.stats().renders")
    page.mouse("mouseMoved", *box)
    page.mouse("mousePressed", *box, buttons=1, clicks=1)
    for i in range(1, 11):
        page.mouse("mouseMoved", box[0] + 8 * i, box[1] + 5 * i, buttons=1)
    page.mouse("mouseReleased", box[0] + 80, box[1] + 50, clicks=1)
    page.wait_for(f"kgExplorer.stats().renders > {renders} && !kgExplorer.renderer.getCamera().isAnimated()", timeout=10)
    page.wait_for("document.querySelector('.sigma-nodes').style.transform === ''", timeout=10)
    nx, ny = on_screen(page, "Product:engine")
    assert nx - x >= 78 and ny - y >= 48, (x, y, nx, ny)  # moved with the drag (and its short inertia)
    page.click_at(nx, ny)  # drawn where it now is: a click there selects it
    assert page.eval("document.querySelector('[data-role=details] h2').textContent") == "Analytical Engine"


def test_a_large_graph_draws_with_cheap_programs_and_stays_usable(browser: Browser, tmp_path: Path) -> None:
    from explorer_graphs import large_graph

    path = tmp_path / "large.html"
    path.write_text(graph_html(large_graph(2100, 3200), max_nodes=None, title="large"), encoding="utf-8")
    p = browser.open(path.as_uri())
    p.wait_for(READY, timeout=60)
    kinds = p.eval("(() => { const r = kgExplorer.renderer, g = r.getGraph();"
                   " return [r.getNodeDisplayData(g.nodes()[0]).type, r.getEdgeDisplayData(g.edges()[0]).type]; })()")
    assert kinds == ["point", "thin"]  # point sprites and 1-px lines: what a software WebGL draws quickly
    assert len(shown_nodes(p)) == 2100 and len(shown_edges(p)) == 3200
    search(p, "Person 10")
    p.click("[data-role=suggestions] button")
    assert p.eval("document.querySelector('[data-role=details] h2').textContent") == "Person 10"
    p.click("[data-action=focus]")
    around = set(p.eval("[...kgExplorer.neighbours('Person:e10', 1)]"))
    assert set(shown_nodes(p)) == around and len(around) > 1
    p.click("[data-action=show-all]")
    p.click("[data-filter=type][data-value=Person]")
    assert len(shown_nodes(p)) == 2100 - 420 and not any(n.startswith("Person:") for n in shown_nodes(p))
    browser.close_page(p)


NO_WEBGL = """(() => { const get = HTMLCanvasElement.prototype.getContext;
  HTMLCanvasElement.prototype.getContext = function (kind, ...rest) {
    return /webgl/i.test(kind) ? null : get.call(this, kind, ...rest); }; })();"""


def test_without_webgl_the_page_says_so_and_the_rest_works(browser: Browser, page_file: Path) -> None:
    p = browser.open(page_file.as_uri(), init_script=NO_WEBGL)
    p.wait_for(READY)
    assert "cannot be drawn in this browser" in p.eval("document.querySelector('[data-role=no-webgl]').textContent")
    assert search(p, "countess") == ["Countess of Lovelace alias of Ada Lovelace · Person"]
    p.click("[data-role=suggestions] button")
    assert p.eval("document.querySelector('[data-role=details] h2').textContent") == "Ada Lovelace"
    p.click("[data-filter=type][data-value=Location]")
    assert p.eval("document.querySelector('.kgx').dataset.visibleNodes") == "5"
    assert p.eval("kgExplorer.svg()").count("<circle") == 5
    browser.close_page(p)
