"""`lambdafuzz report DIR`: a self-contained report.html, checked as text and rendered in
headless Chromium (Debian's package, driven by Playwright)."""

from __future__ import annotations

import json
import re
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest
from click.testing import CliRunner

from lambdafuzz.cli.main import cli
from lambdafuzz.cli.report import report
from lambdafuzz.fuzzer.out_dir import read_plot_rows
from lambdafuzz.report.html import plot_svg, render_report
from tests.fixtures.sam_campaign import FUNCTIONS, copy_campaign

CHROMIUM = Path("/usr/bin/chromium")
CHROMIUM_ARGS = [
    "--headless",
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]
EXTERNAL = re.compile(r"""(?:src|href|url)\s*[=(]\s*["']?\s*(?:https?:)?//""", re.IGNORECASE)


@pytest.fixture(scope="module")
def minimized_report(sam_campaign, tmp_path_factory) -> Path:
    """A copy of the S3 function's campaign with a minimized failure, and its report."""
    campaign = copy_campaign(
        sam_campaign.campaign("IngestFunction"), tmp_path_factory.mktemp("r") / "c"
    )
    (failure,) = (campaign / "failures").glob("*.json")
    args = [
        "minimize",
        str(failure),
        "--function",
        "IngestFunction",
        "--max-attempts",
        "25",
        "--time",
        "30",
    ]
    shrink = CliRunner().invoke(cli, args)
    assert shrink.exit_code == 0, shrink.output
    result = CliRunner().invoke(report, [str(campaign)])
    assert result.exit_code == 0, result.output
    assert result.output.strip() == f"wrote {campaign / 'report.html'}"
    return campaign / "report.html"


@pytest.mark.slow
def test_report_is_self_contained_and_complete(minimized_report):
    page = minimized_report.read_text()
    assert not EXTERNAL.findall(page)  # nothing loaded from the network
    assert page.count('<img id="coverage-plot" src="data:image/png;base64,') == 1
    assert "UnicodeDecodeError at inventory/ingest.py:28" in page
    assert "Traceback (most recent call last)" in page
    assert "World that triggers it" in page and "lambdafuzz-uploads" in page
    assert "&quot;eventSource&quot;: &quot;aws:s3&quot;" in page  # the event, escaped JSON
    assert "Minimized reproducer" in page and ".min.json" in page
    assert "--function IngestFunction</code>" in page  # the repro line names the function
    assert "class='arm arm-covered'" in page and "class='arm arm-uncovered'" in page
    assert "inventory/ingest.py &mdash;" in page and "inventory/worker.py &mdash;" in page
    assert "No type-targeted mutation in this campaign" in page
    # the line that raises is marked and links to its failure; the source is highlighted
    assert " crash' id='inventory/ingest.py-L28'" in page
    assert "<a class='crash-mark' href='#failure-0' title='UnicodeDecodeError at " in page
    assert '<span class="k">def</span>' in page


@pytest.mark.slow
def test_report_escapes_campaign_data_and_shows_targeting(sam_campaign, tmp_path):
    campaign = copy_campaign(sam_campaign.campaign("WorkerFunction"), tmp_path / "c")
    failure, *others = sorted((campaign / "failures").glob("*.json"))
    for other in others:  # one failure carries the hostile text
        other.unlink()
    data = json.loads(failure.read_text())
    data["failure"]["message"] = "<script>alert('x')</script>"
    data["world"]["queues"][0]["messages"] = ["<img src=x onerror=alert(1)>"]
    failure.write_text(json.dumps(data))
    stats = json.loads((campaign / "stats.json").read_text())
    stats["targeting"] = {
        "csv.row": {"children": 40, "saved": 3},
        "json.value": {"children": 10, "saved": 0},
    }
    (campaign / "stats.json").write_text(json.dumps(stats))
    page = render_report(campaign)
    assert "<script>" not in page and "<img src=x" not in page
    assert "&lt;script&gt;alert(&#x27;x&#x27;)&lt;/script&gt;" in page
    assert "<td><code>csv.row</code></td><td>40</td><td>3</td><td>7.5%</td>" in page
    # the campaign saved the real event the handler received (real receipt handles)
    assert "Event (regenerated from the choice sequence" not in page
    assert (
        '"eventSource": "aws:sqs"' in page.replace("&quot;", '"')
        and "offline-receipt-0" not in page
    )


@pytest.mark.slow
def test_report_of_a_template_out_dir_covers_each_function(sam_campaign, tmp_path):
    out = tmp_path / "out"
    for function in FUNCTIONS:
        copy_campaign(sam_campaign.campaign(function), out / function)
    result = CliRunner().invoke(report, [str(out)])
    assert result.exit_code == 0, result.output
    assert [line.split()[-1] for line in result.output.splitlines()] == [
        str(out / f / "report.html") for f in FUNCTIONS
    ]
    empty = CliRunner().invoke(report, [str(tmp_path)])
    assert empty.exit_code == 2 and "holds no campaign" in empty.output


@pytest.mark.slow
def test_svg_fallback_plot_is_well_formed(sam_campaign):
    rows = read_plot_rows(sam_campaign.campaign("IngestFunction"))
    assert rows and rows[-1].execs == 30
    svg = ET.fromstring(plot_svg(rows))
    polylines = svg.findall("{http://www.w3.org/2000/svg}polyline")
    # steps: one corner per change plus one point per row
    assert len(polylines) == 2 and all(
        len(p.attrib["points"].split()) == 2 * len(rows) - 1 for p in polylines
    )
    labels = [t.text for t in svg.findall("{http://www.w3.org/2000/svg}text")]
    assert "0" in labels and "30" in labels  # real tick labels on the executions axis
    assert "executions" in labels and "branch arms covered" in labels


def test_nice_ticks_are_round_and_cover_the_range():
    from lambdafuzz.report.html import nice_ticks

    assert nice_ticks(600) == [0, 200, 400, 600]
    assert nice_ticks(7) == [0, 2, 4, 6, 8]
    assert nice_ticks(0) == [0, 1]
    assert nice_ticks(123_456)[-1] >= 123_456


@pytest.mark.slow
def test_report_renders_in_headless_chromium(minimized_report, tmp_path):
    if not CHROMIUM.exists():
        pytest.skip(
            f"{CHROMIUM} is missing: install Debian's chromium package (apt-get install -y chromium)"
        )
    sync_api = pytest.importorskip(
        "playwright.sync_api", reason="the playwright package is not installed"
    )
    from PIL import Image

    shot = tmp_path / "report.png"
    with sync_api.sync_playwright() as p:
        browser = p.chromium.launch(executable_path=str(CHROMIUM), args=CHROMIUM_ARGS)
        try:
            page = browser.new_page(viewport={"width": 1200, "height": 900})
            page.goto(minimized_report.resolve().as_uri())
            plot = page.locator("#coverage-plot")
            plot.wait_for(state="visible", timeout=10_000)
            assert plot.evaluate("img => img.complete && img.naturalWidth") > 0
            covered = page.locator(".source .arm-covered").first
            uncovered = page.locator(".source .arm-uncovered").first
            assert covered.is_visible() and uncovered.is_visible()
            assert "->" in covered.get_attribute("title")  # tooltip: from_line -> to_line
            assert page.locator("section.failure pre.traceback").first.is_visible()
            colours = page.evaluate(
                "[...document.querySelectorAll('.line.full, .line.none')]"
                ".map(e => getComputedStyle(e).backgroundColor)"
            )
            assert len(set(colours)) >= 2  # covered and uncovered lines are told apart
            page.screenshot(path=str(shot), full_page=True)
        finally:
            browser.close()
    with Image.open(shot) as image:
        assert image.format == "PNG" and image.width >= 1200 and image.height > 900
        colours = image.convert("RGB").getcolors(maxcolors=1 << 20)
        assert colours is None or len(colours) > 10  # not blank
