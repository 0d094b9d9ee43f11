// @vitest-environment jsdom
// The XSS figure's detector of dangerous markup (bench/reliability/xss-dom.mjs), run on a DOM: a neutralised image
// (what the renderer's sanitizer makes of an image pointing elsewhere: no src, its URL kept in data-blocked-src)
// loads nothing and is not flagged; an image that would load from the attacker's host still is, however it
// gets there (src, srcset, or a src left next to data-blocked-src).
import { afterEach, describe, expect, it } from "vitest";
import { renderMarkdown } from "../../../renderer/panels/markdown";
import { dangerousMarkup } from "../xss-dom.mjs";

afterEach(() => {
	document.body.innerHTML = "";
});

function flagsFor(html: string): string[] {
	const d = document.createElement("div");
	d.innerHTML = html;
	document.body.append(d);
	try {
		return dangerousMarkup() as string[];
	} finally {
		d.remove();
	}
}

describe("dangerousMarkup", () => {
	it("does not flag a neutralised image: data-blocked-src, no src", () => {
		expect(flagsFor('<img data-blocked-src="https://xss.invalid/a.png" alt="[image not loaded: x]">')).toEqual([]);
	});

	it("does not flag what the renderer makes of images from the attacker's host (inline and reference markdown, raw HTML)", () => {
		const html = renderMarkdown('![pic](https://xss.invalid/p.png) <img src="http://xss.invalid/q.png"> ![ref][r]\n\n[r]: //xss.invalid/r.png');
		const d = document.createElement("div");
		d.innerHTML = html;
		const imgs = [...d.querySelectorAll("img")];
		// The raw <img> is shown as text (markdown.ts escapes raw HTML); the two markdown images are neutralised.
		expect(imgs.length).toBe(2);
		for (const img of imgs) {
			expect(img.hasAttribute("src")).toBe(false);
			expect(img.getAttribute("data-blocked-src")).toMatch(/xss\.invalid/);
		}
		expect(flagsFor(html)).toEqual([]);
	});

	it("flags an image that loads from the attacker's host", () => {
		expect(flagsFor('<img src="https://xss.invalid/a.png">')).toEqual(["img[src] pointing at xss.invalid"]);
		expect(flagsFor('<img srcset="https://xss.invalid/a.png 2x">')).toEqual(["img[srcset] pointing at xss.invalid"]);
	});

	it("flags data-blocked-src when the image still has a src or srcset (not neutralised)", () => {
		expect(flagsFor('<img src="https://xss.invalid/a.png" data-blocked-src="https://xss.invalid/a.png">')).toEqual([
			"img[src] pointing at xss.invalid",
			"img[data-blocked-src] pointing at xss.invalid",
		]);
		expect(flagsFor('<img srcset="x.png 1x" data-blocked-src="https://xss.invalid/a.png">')).toEqual(["img[data-blocked-src] pointing at xss.invalid"]);
	});

	it("flags data-blocked-src on any element but an image", () => {
		expect(flagsFor('<video data-blocked-src="https://xss.invalid/v.mp4"></video>')).toEqual(["video[data-blocked-src] pointing at xss.invalid"]);
	});
});
