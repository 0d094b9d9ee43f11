// Markdown for untrusted session content: marked renders, highlight.js colours code, DOMPurify has the
// last word. Session files come from anywhere (shared, downloaded, written by a model), so raw HTML in
// the markdown is shown as text, links never navigate by themselves, and images are only data: URLs of
// raster types (no remote fetches: a tracking pixel would reveal that the file was opened).

import DOMPurify from "dompurify";
import hljs from "highlight.js/lib/common";
import { Marked, type Tokens } from "marked";

const escapeMap: Record<string, string> = { "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" };
export function escapeHtml(s: string): string {
	return s.replace(/[&<>"']/g, (c) => escapeMap[c]);
}

export const SAFE_IMAGE_URL = /^data:image\/(?:png|jpeg|jpg|gif|webp|bmp);base64,[a-z0-9+/=\s]*$/i;
const SAFE_LINK_URL = /^(?:https?:|mailto:)/i;

const MAX_HIGHLIGHT = 100_000;

/** Highlighted HTML for a code block (escaped plain text when the language is unknown or the code huge). */
export function highlightCode(code: string, lang?: string): string {
	const language = lang?.trim().split(/\s+/)[0]?.toLowerCase();
	if (language && code.length <= MAX_HIGHLIGHT && hljs.getLanguage(language)) {
		try {
			return hljs.highlight(code, { language, ignoreIllegals: true }).value;
		} catch {
			// Fall through to plain text: a highlighter bug must not hide the content.
		}
	}
	return escapeHtml(code);
}

const marked = new Marked({
	gfm: true,
	async: false,
	renderer: {
		// Raw HTML inside markdown is displayed, not interpreted.
		html(token: Tokens.HTML | Tokens.Tag) {
			return escapeHtml(token.text);
		},
		code(token: Tokens.Code) {
			const lang = token.lang ? escapeHtml(token.lang.split(/\s+/)[0]) : "";
			return `<pre><code class="hljs${lang ? ` language-${lang}` : ""}">${highlightCode(token.text, token.lang)}</code></pre>\n`;
		},
	},
});

let purifier: ReturnType<typeof DOMPurify> | null = null;

function getPurifier(): ReturnType<typeof DOMPurify> {
	if (purifier) return purifier;
	const p = DOMPurify(window);
	p.addHook("afterSanitizeAttributes", (node) => {
		const el = node as Element;
		if (el.tagName === "A") {
			const href = el.getAttribute("href") ?? "";
			if (!SAFE_LINK_URL.test(href)) el.removeAttribute("href");
			el.removeAttribute("target");
			el.setAttribute("rel", "noreferrer noopener");
		}
		if (el.tagName === "INPUT") {
			// Only gfm task-list checkboxes, inert.
			if (el.getAttribute("type") !== "checkbox") el.remove();
			else el.setAttribute("disabled", "");
		}
		if (el.tagName === "IMG") {
			const src = el.getAttribute("src") ?? "";
			if (!SAFE_IMAGE_URL.test(src)) {
				el.removeAttribute("src");
				el.setAttribute("data-blocked-src", src.slice(0, 200));
				el.setAttribute("alt", `[image not loaded: ${el.getAttribute("alt") ?? "remote images are blocked"}]`);
			}
		}
	});
	purifier = p;
	return p;
}

const ALLOWED_TAGS = [
	"a",
	"b",
	"blockquote",
	"br",
	"code",
	"del",
	"div",
	"em",
	"h1",
	"h2",
	"h3",
	"h4",
	"h5",
	"h6",
	"hr",
	"i",
	"img",
	"input",
	"li",
	"ol",
	"p",
	"pre",
	"s",
	"span",
	"strong",
	"sub",
	"sup",
	"table",
	"tbody",
	"td",
	"th",
	"thead",
	"tr",
	"ul",
];
const ALLOWED_ATTR = ["href", "title", "alt", "src", "class", "start", "align", "type", "checked", "disabled", "colspan", "rowspan"];

/** Sanitize HTML for insertion: our own allow-list, no event handlers, no styles, no forms. */
export function sanitizeHtml(html: string): string {
	return getPurifier().sanitize(html, {
		ALLOWED_TAGS,
		ALLOWED_ATTR,
		ALLOW_DATA_ATTR: false,
		ALLOW_UNKNOWN_PROTOCOLS: false,
		// gfm task lists render <input type=checkbox disabled>; nothing else may be an input.
		FORBID_TAGS: ["style", "script", "iframe", "object", "embed", "form", "svg", "math", "link", "meta", "base"],
		RETURN_TRUSTED_TYPE: false,
	}) as string;
}

/** Markdown -> sanitized HTML. */
export function renderMarkdown(text: string): string {
	let html: string;
	try {
		html = marked.parse(text) as string;
	} catch {
		html = `<pre>${escapeHtml(text)}</pre>`;
	}
	return sanitizeHtml(html);
}
