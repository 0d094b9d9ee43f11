// The XSS figure's detector of dangerous markup (figure 5, bench/reliability/xss.mjs).

/**
 * Runs in the page (serialised with toString, so self-contained): markup that must never come out of session content.
 * Its own module so the harness's test runs it on a DOM without the browser harness (bench/reliability/test/xss-detector.test.ts).
 */
export function dangerousMarkup() {
	const found = [];
	const appScripts = new Set([...document.querySelectorAll("head script[src]")]);
	for (const el of document.querySelectorAll("body *")) {
		const tag = el.tagName.toLowerCase();
		if (tag === "script" && !appScripts.has(el)) found.push("script element");
		if (["iframe", "object", "embed", "base", "meta", "frame", "frameset", "portal"].includes(tag)) found.push(`${tag} element`);
		// The app has forms of its own (search, composer); one with an action or holding content is not.
		if (tag === "form" && (el.hasAttribute("action") || /XSSV/.test(el.textContent ?? ""))) found.push("form element from content");
		if (tag === "link" && el.getAttribute("rel")?.includes("stylesheet")) found.push("stylesheet link");
		if (tag === "style" && /xss\.invalid/.test(el.textContent ?? "")) found.push("style element from content");
		for (const a of el.attributes) {
			if (/^on/i.test(a.name)) found.push(`${tag}[${a.name}]`);
			if (
				/^\s*(javascript|vbscript|data:text\/html)/i.test(a.value) &&
				["href", "src", "action", "formaction", "data", "xlink:href"].includes(a.name.toLowerCase())
			)
				found.push(`${tag}[${a.name}=${a.value.slice(0, 30)}]`);
			// A plain http(s) link is allowed content (following it is a navigation, counted separately);
			// anything that loads from the outside by itself is not. Text-only attributes (an accessible name,
			// a tooltip) never load or run anything: session text in them is shown, not fetched.
			// The renderer's sanitizer neutralises an image it will not load by moving its URL to data-blocked-src
			// (renderer/panels/markdown.ts): a data-* attribute is never fetched, and with no src or srcset left
			// the element loads nothing and offers nothing to click to load it (docs/guarantees.md, section 5).
			const neutralisedImage = tag === "img" && a.name === "data-blocked-src" && !el.hasAttribute("src") && !el.hasAttribute("srcset");
			const textOnly = /^(aria-[a-z]+|title|alt|placeholder)$/i.test(a.name) || neutralisedImage;
			if (/xss\.invalid/.test(a.value) && !textOnly && !(tag === "a" && a.name === "href" && /^https?:/i.test(a.value)))
				found.push(`${tag}[${a.name}] pointing at xss.invalid`);
		}
	}
	return found;
}
