"""`check --format html`: one self-contained page, checked as written and in a real browser.

The browser test needs Debian's Chromium and its driver (`apt-get install chromium
chromium-driver`); without them it is skipped. It loads the page in headless Chromium through
Selenium and reads the page as rendered: no console error, no request for anything, and per
template the reused region, the first differing token and the block boundaries where
`--format json` puts them.
"""

from __future__ import annotations

import json
import re
import shutil
from html.parser import HTMLParser
from pathlib import Path

import pytest
from click.testing import CliRunner

from prefixlint.cli import cli
from prefixlint.tokenize import load_tokenizer

SAMPLES = Path(__file__).resolve().parents[2] / "samples"
FILES = [SAMPLES / name for name in ("support_bot.yaml", "daily_briefing.txt", "support_bot_fixed.yaml",
                                     "chat_template_dated.jinja", "code_review.prompt")]


@pytest.fixture(scope="module")
def page(tmp_path_factory):
    out = tmp_path_factory.mktemp("html") / "reuse.html"
    result = CliRunner().invoke(cli, ["check", "--isolated", "--format", "html", "--output-file", str(out),
                                      *map(str, FILES)])
    assert result.exit_code == 1 and result.stdout == ""
    data = json.loads(CliRunner().invoke(cli, ["check", "--isolated", "--format", "json", *map(str, FILES)]).stdout)
    return out, {entry["path"]: entry for entry in data["files"]}


class Tokens(HTMLParser):
    """Per section and side: the class of every token span, in order."""

    def __init__(self):
        super().__init__()
        self.sides: dict[tuple[str, str], list[str]] = {}
        self.path = self.side = None

    def handle_starttag(self, tag, attrs):
        attrs = dict(attrs)
        if tag == "section":
            self.path = attrs["data-path"]
        elif tag == "div" and "side" in (attrs.get("class") or "").split():
            self.side = attrs["class"].split()[1]
            self.sides[(self.path, self.side)] = []
        elif tag == "span" and (attrs.get("class") or "").startswith("tok "):
            self.sides[(self.path, self.side)].append(attrs["class"])


def test_the_page_is_self_contained(page):
    html = page[0].read_text(encoding="utf-8")
    assert "Content-Security-Policy" in html and "default-src 'none'" in html
    assert not re.search(r"""(src|href)\s*=\s*["'](?!#)""", html)  # nothing to fetch, only in-page anchors
    assert "<script" not in html and "@import" not in html and "url(" not in html


def test_regions_as_written_match_the_json_numbers(page):
    out, by_path = page
    parser = Tokens()
    parser.feed(out.read_text(encoding="utf-8"))
    support = by_path[str(SAMPLES / "support_bot.yaml")]
    now = parser.sides[(support["path"], "now")]
    assert len(now) == support["tokens"]
    assert sum(c.split()[1] == "r" for c in now) == support["reusable_tokens"]
    assert [i for i, c in enumerate(now) if c.split()[1] == "x"] == [support["shared_prefix_tokens"]]
    fixed = parser.sides[(support["path"], "fixed")]
    assert sum(c.split()[1] == "r" for c in fixed) == support["fixed_reusable_tokens"]
    # 16-token blocks: boundaries before tokens 16, 32, ... and nowhere else
    assert [i for i, c in enumerate(now) if c.endswith(" b")] == list(range(16, len(now), 16))


def test_the_token_texts_are_the_tokenizers(page):
    """daily_briefing.txt is a plain prompt: its tokens are o200k_base's tokens of the file's first
    render, and `{date}` at line 1 ends the shared prefix (PFX001 at 1:10)."""
    out, by_path = page
    html = out.read_text(encoding="utf-8")
    path = str(SAMPLES / "daily_briefing.txt")
    section = html[html.index(f'data-path="{path}"'):]
    section = section[: section.index("</section>")]
    texts = re.findall(r'<span class="tok [^"]*" data-i="\d+" title="[^"]*">(.*?)</span>', section.split('class="side fixed"')[0],
                       flags=re.S)
    from html import unescape

    rendered = "".join(unescape(t).replace("↵\n", "\n") for t in texts)
    tok = load_tokenizer("o200k_base")
    assert len(tok.encode(rendered)) == by_path[path]["tokens"] == len(texts)
    assert "reuse stops at token 8, at <code>{date}</code> (line 1, column 10)" in section


def _chromium():
    chromium, driver = shutil.which("chromium"), shutil.which("chromedriver")
    if not chromium or not driver:
        pytest.skip("needs Debian's chromium and chromium-driver (apt-get install chromium chromium-driver)")
    webdriver = pytest.importorskip("selenium.webdriver")
    return webdriver, chromium, driver


def test_the_page_in_a_real_browser(page, tmp_path):
    webdriver, chromium, driver_path = _chromium()
    out, by_path = page
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
                 "--disable-background-networking", "--disable-component-update", "--disable-sync",
                 f"--user-data-dir={tmp_path / 'profile'}"):
        options.add_argument(flag)
    options.set_capability("goog:loggingPrefs", {"browser": "ALL"})
    browser = webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=driver_path))
    try:
        browser.get(out.as_uri())
        assert browser.title == "prefixlint: prefix-cache reuse"
        sides = browser.execute_script("""
            return Array.from(document.querySelectorAll('section.template')).map(s => ({
              path: s.dataset.path,
              sides: Array.from(s.querySelectorAll('div.side')).map(d => {
                const toks = Array.from(d.querySelectorAll('.tok'));
                const stop = d.querySelector('.tok.x');
                const box = stop ? stop.getBoundingClientRect() : null;
                return {kind: d.classList[1], tokens: toks.length,
                        reused: d.querySelectorAll('.tok.r').length,
                        stop: stop ? Number(stop.dataset.i) : null,
                        stopShown: box ? box.width > 0 && box.height > 0 : null,
                        stopColor: stop ? getComputedStyle(stop).backgroundColor : null,
                        marker: d.querySelectorAll('.stopmark').length,
                        boxScrolls: d.querySelector('pre').scrollHeight > d.querySelector('pre').clientHeight + 1,
                        generated: d.querySelectorAll('.tok.h').length,
                        reusedColor: toks.length && toks[0].classList.contains('r')
                                     ? getComputedStyle(toks[0]).backgroundColor : null};
              })}));""")
        resources = browser.execute_script("return performance.getEntriesByType('resource').length")
        errors = [entry for entry in browser.get_log("browser") if entry["level"] == "SEVERE"]
    finally:
        browser.quit()
    assert errors == [] and resources == 0
    shown = {item["path"]: {side["kind"]: side for side in item["sides"]} for item in sides}
    assert set(shown) == set(by_path)
    for path, entry in by_path.items():
        if entry["format"] == "hf-chat-template":
            assert shown[path] == {}  # measured by probe renders: numbers only
            continue
        now = shown[path]["now"]
        fixed = shown[path].get("fixed", now)  # a clean template has one panel
        assert (now["tokens"], now["reused"]) == (entry["tokens"], entry["reusable_tokens"]), path
        assert fixed["reused"] == entry["fixed_reusable_tokens"], path
        assert not now["boxScrolls"] and not fixed["boxScrolls"]  # no inner scroll box hides the stop
        if entry["shared_prefix_tokens"] < entry["tokens"]:
            assert now["stop"] == entry["shared_prefix_tokens"] and now["stopShown"], path
            assert now["stopColor"] == "rgb(255, 138, 128)" and now["marker"] == 1
    assert set(shown[str(SAMPLES / "support_bot_fixed.yaml")]) == {"now"}  # clean: one panel
    assert set(shown[str(SAMPLES / "support_bot.yaml")]) == {"now", "fixed"}
    support = shown[str(SAMPLES / "support_bot.yaml")]["now"]
    assert support["reused"] == 16 and support["reusedColor"] == "rgb(183, 235, 198)"
    # code_review.prompt is a system prompt: the 4 turns of history prefixlint adds are marked
    assert shown[str(SAMPLES / "code_review.prompt")]["now"]["generated"] > 300
    assert shown[str(SAMPLES / "daily_briefing.txt")]["now"]["generated"] == 0


def _contrast(fg: tuple, bg: tuple) -> float:
    def luminance(rgb):
        values = [c / 255 for c in rgb]
        values = [c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4 for c in values]
        return 0.2126 * values[0] + 0.7152 * values[1] + 0.0722 * values[2]
    high, low = sorted((luminance(fg), luminance(bg)), reverse=True)
    return (high + 0.05) / (low + 0.05)


def test_above_the_fold_in_a_real_browser_screenshot(tmp_path):
    """One template's page at 1280x800: the stop marker and the first differing token are in
    the screenshot as loaded (no scrolling), every token colour is readable (WCAG AA 4.5:1),
    and the fix's moves are listed."""
    webdriver, chromium, driver_path = _chromium()
    from PIL import Image

    out = tmp_path / "one.html"
    result = CliRunner().invoke(cli, ["check", "--isolated", "--format", "html", "--output-file", str(out),
                                      str(SAMPLES / "support_bot.yaml")])
    assert result.exit_code == 1
    options = webdriver.ChromeOptions()
    options.binary_location = chromium
    for flag in ("--headless", "--no-sandbox", "--disable-gpu", "--window-size=1280,800", "--hide-scrollbars",
                 "--force-device-scale-factor=1", f"--user-data-dir={tmp_path / 'profile'}"):
        options.add_argument(flag)
    browser = webdriver.Chrome(options=options, service=webdriver.ChromeService(executable_path=driver_path))
    try:
        browser.get(out.as_uri())
        facts = browser.execute_script("""
            const mark = document.querySelector('.side.now .stopmark').getBoundingClientRect();
            const stop = document.querySelector('.side.now .tok.x').getBoundingClientRect();
            const colors = ['r', 's', 'x', 'l'].map(k => {
              const t = document.querySelector('.tok.' + k); const st = getComputedStyle(t);
              return [k, st.color, st.backgroundColor]; });
            return {height: innerHeight, markTop: mark.top, markBottom: mark.bottom, stopBottom: stop.bottom,
                    markLeft: mark.left, markRight: mark.right, colors: colors,
                    moves: Array.from(document.querySelectorAll('.moves li')).map(li => li.textContent)};""")
        shot = tmp_path / "fold.png"
        browser.save_screenshot(str(shot))
    finally:
        browser.quit()
    assert 0 <= facts["markTop"] and facts["stopBottom"] <= facts["height"], facts
    image = Image.open(shot).convert("RGB")
    assert image.size[1] == facts["height"]
    box = (int(facts["markLeft"]), int(facts["markTop"]), int(facts["markRight"]), int(facts["markBottom"]))
    raw = image.crop(box).tobytes()
    marker_pixels = sum(1 for i in range(0, len(raw), 3) if raw[i:i + 3] == bytes((183, 28, 28)))
    assert marker_pixels > 0.3 * (box[2] - box[0]) * (box[3] - box[1])  # the red marker, as painted
    parse = lambda css: tuple(int(v) for v in css[css.index("(") + 1:css.index(")")].split(",")[:3])
    for kind, color, background in facts["colors"]:
        assert _contrast(parse(color), parse(background)) >= 4.5, (kind, color, background)
    assert any("{{ now }}" in item or "Current time" in item for item in facts["moves"]), facts["moves"]


# --- the Action draws the page, uploads it as an artifact and links it from the comment ------
def test_the_action_uploads_the_page_and_the_comment_links_it(tmp_path):
    import os
    import subprocess
    import sys

    import yaml

    action = yaml.safe_load((SAMPLES.parent / "action.yml").read_text())
    steps = action["runs"]["steps"]
    names = [step.get("name", step.get("uses")) for step in steps]
    page, upload, report = (names.index(n) for n in ("Draw the reuse page", "Upload the reuse page",
                                                     "Report reuse before and after"))
    assert page < upload < report
    assert steps[upload]["uses"] == "actions/upload-artifact@v7" and steps[upload]["id"] == "upload"
    assert steps[upload]["with"]["archive"] is False  # one HTML file, opened in the browser
    assert steps[upload]["with"]["path"] == "${{ runner.temp }}/prefixlint-reuse.html"
    assert steps[report]["env"]["PREFIXLINT_PAGE_URL"] == "${{ steps.upload.outputs.artifact-url }}"
    (tmp_path / "prompts").mkdir()
    shutil.copy(SAMPLES / "daily_briefing.txt", tmp_path / "prompts" / "daily.txt")
    env = {**os.environ, "RUNNER_TEMP": str(tmp_path), "PREFIXLINT_PATHS": "prompts", "PREFIXLINT_TOKENIZER": "",
           "PREFIXLINT_ENGINE": "", "PREFIXLINT_BLOCK_SIZE": "", "PREFIXLINT_PAGE": "true",
           "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ['PATH']}"}
    env.pop("GITHUB_ACTIONS", None)
    done = subprocess.run(["bash", "-e", "-c", steps[page]["run"]], cwd=tmp_path, env=env, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr  # findings do not fail this step: the report step decides
    html = (tmp_path / "prefixlint-reuse.html").read_text()
    assert 'data-path="prompts/daily.txt"' in html


def test_report_links_the_page(tmp_path, monkeypatch):
    from tests.gitrepo import init_repo

    repo = init_repo(tmp_path / "repo", {"prompts/daily.txt": (SAMPLES / "daily_briefing.txt").read_text()})
    monkeypatch.chdir(repo)
    url = "https://github.com/octo/prompts/actions/runs/7/artifacts/9"
    result = CliRunner().invoke(cli, ["report", "--base", "HEAD", "--page-url", url, "prompts"])
    assert result.exit_code == 0, result.output
    assert f"[The reuse, token by token]({url})" in result.stdout
