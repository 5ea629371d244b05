"""Open a local HTML page (e.g. `smol-envs report --html` output) in the system's Chromium
through Playwright and save a full-page PNG; exit 1 when the page logged a console error.

    uv run python scripts/screenshot_page.py report.html docs/report.png [--width 1800]

Uses Debian's Chromium (`/usr/lib/chromium/chromium`, or --chromium); never downloads a browser.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

CHROMIUM = "/usr/lib/chromium/chromium"


def screenshot(page_path: Path, png: Path, width: int, chromium: str) -> list[str]:
    """Render `page_path` at `width` CSS pixels, write the full page to `png`; returns the
    console errors and page errors seen while loading."""
    from playwright.sync_api import sync_playwright

    errors: list[str] = []
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=chromium)
        try:
            page = browser.new_page(viewport={"width": width, "height": 900})
            page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
            page.on("pageerror", lambda e: errors.append(str(e)))
            page.goto(page_path.resolve().as_uri(), wait_until="load")
            png.parent.mkdir(parents=True, exist_ok=True)
            page.screenshot(path=str(png), full_page=True)
        finally:
            browser.close()
    return errors


def main(argv: list[str] | None = None) -> int:
    """Entry point; returns 0, or 1 when the page logged errors."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0],
                                     formatter_class=argparse.ArgumentDefaultsHelpFormatter)
    parser.add_argument("page", type=Path, help="the HTML file to open")
    parser.add_argument("png", type=Path, help="where to write the screenshot")
    parser.add_argument("--width", type=int, default=1800, help="viewport width in CSS pixels")
    parser.add_argument("--chromium", default=CHROMIUM, help="Chromium executable")
    args = parser.parse_args(argv)
    errors = screenshot(args.page, args.png, args.width, args.chromium)
    for error in errors:
        print(f"console error: {error}", file=sys.stderr)
    print(f"wrote {args.png}")
    return 1 if errors else 0


if __name__ == "__main__":
    sys.exit(main())
