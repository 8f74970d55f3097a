"""`phasebench report` renders in headless Chromium: not blank, every image loads, no console
errors, and it references nothing off the machine."""
import json
import re
import shutil
import subprocess

import matplotlib.image
import pytest

# Injected into a copy of the page: records load errors (capture phase sees failed images)
# and, once loaded, writes which images did not decode into the DOM for --dump-dom to show.
PROBE = """<script>
window.__errors = [];
window.addEventListener('error', e => window.__errors.push(String(e.message || (e.target && e.target.src))), true);
window.addEventListener('load', () => {
  const imgs = Array.from(document.images);
  const broken = imgs.filter(i => !(i.complete && i.naturalWidth > 0)).map(i => i.getAttribute('src'));
  const out = document.createElement('pre');
  out.id = 'probe';
  out.textContent = JSON.stringify({images: imgs.length, broken: broken, errors: window.__errors});
  document.body.appendChild(out);
});
</script>"""


def chromium():
    for name in ("chromium", "chromium-browser"):
        if shutil.which(name):
            return shutil.which(name)
    pytest.fail("headless Chromium is needed: apt-get update && apt-get install -y chromium "
                "(or scripts/setup --tests)")


@pytest.fixture(scope="session")
def report(binary, sweep_file, gate_file, cycles_file, tmp_path_factory):
    out = tmp_path_factory.mktemp("report")
    proc = subprocess.run([binary, "report", sweep_file, gate_file, cycles_file, "--out", out],
                          capture_output=True, text=True, timeout=900)
    assert proc.returncode == 0, proc.stderr
    return out / "index.html"


def browse(page, profile, *flags):
    cmd = [chromium(), "--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking",
           "--disable-component-update", "--disable-sync", "--no-first-run", f"--user-data-dir={profile}",
           "--enable-logging=stderr", "--v=0", "--virtual-time-budget=10000", *flags, page.as_uri()]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=300)


def console_errors(stderr: str) -> list:
    return [line for line in stderr.splitlines() if "ERROR:CONSOLE" in line or "Uncaught" in line]


def test_report_has_every_section(report, sweep_data):
    html = report.read_text()
    for needle in ("prefill phase budget", "decode phase budget", "A/B gate", "Optimization cycles",
                   sweep_data["device"]["name"], sweep_data["tool"]["git_commit"]):
        assert needle in html, needle
    for i in range(len(sweep_data["runs"])):
        assert f"id='sweep-run{i}'" in html
    # Static and offline: no scripts, nothing fetched from elsewhere.
    assert "<script" not in html and not re.search(r"(src|href)=['\"](https?:)?//", html)


def test_report_renders_and_every_image_loads(report, tmp_path):
    probe_page = report.with_name("index.probe.html")
    probe_page.write_text(report.read_text().replace("<head>", "<head>" + PROBE, 1))
    proc = browse(probe_page, tmp_path / "profile-dom", "--dump-dom")
    probe_page.unlink()
    m = re.search(r'<pre id="probe">(.*?)</pre>', proc.stdout, re.S)
    assert m, f"the page did not finish loading:\n{proc.stderr[-2000:]}"
    result = json.loads(m.group(1).replace("&quot;", '"').replace("&amp;", "&"))
    assert result["images"] >= 10 and result["broken"] == [] and result["errors"] == [], result
    assert console_errors(proc.stderr) == []


def test_report_screenshot_is_not_blank(report, tmp_path):
    shot = tmp_path / "report.png"
    proc = browse(report, tmp_path / "profile-shot", f"--screenshot={shot}", "--window-size=1400,3000")
    assert shot.is_file(), proc.stderr[-2000:]
    pixels = matplotlib.image.imread(shot)[..., :3]
    assert pixels.shape[:2] == (3000, 1400)
    assert pixels.std() > 0.1, "the screenshot is (nearly) one colour"
    assert (pixels.reshape(-1, 3).std(axis=1) > 0.1).mean() > 0.01, "no coloured chart pixels"
    assert console_errors(proc.stderr) == []
