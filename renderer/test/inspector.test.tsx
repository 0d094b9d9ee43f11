import { afterEach, describe, expect, it } from "vitest";
import type { SessionEntry } from "../../shared/entries";
import { Inspector } from "../panels/Inspector";
import { renderMarkdown, sanitizeHtml } from "../panels/markdown";
import { FakeClient, type FakeEntry } from "./fake-client";
import { harness } from "./harness";
import { click, render, settle, waitFor, type Rendered } from "./render";

const HOSTILE = [
	"<script>window.__pwned = 1</script>",
	'<img src="x" onerror="window.__pwned = 2">',
	"[click](javascript:window.__pwned=3)",
	'<a href="javascript:window.__pwned=4">a</a>',
	"![remote](https://tracker.example/pixel.png)",
	'<iframe src="https://example.com"></iframe>',
	'<svg onload="window.__pwned=5"><circle r="1"/></svg>',
	'<form action="https://evil.example"><input name="q"></form>',
	'<div style="background:url(https://tracker.example/x)">styled</div>',
	"[data](data:text/html;base64,PHNjcmlwdD5hbGVydCgxKTwvc2NyaXB0Pg==)",
	"```html\n<script>window.__pwned=6</script>\n```",
].join("\n\n");

function hostileEntries(): FakeEntry[] {
	const entry = (id: string, message: Record<string, unknown>): SessionEntry =>
		({ type: "message", id, parentId: null, timestamp: "2026-01-01T00:00:00.000Z", message }) as SessionEntry;
	return [
		{ id: "u1", parent: null, kind: "user", entry: entry("u1", { role: "user", content: HOSTILE }) },
		{
			id: "a1",
			parent: "u1",
			kind: "assistant",
			entry: entry("a1", {
				role: "assistant",
				content: [
					{ type: "thinking", thinking: "<img src=x onerror=alert(1)> hmm" },
					{ type: "text", text: HOSTILE },
					{ type: "toolCall", id: "c1", name: "bash", arguments: { command: "<script>alert(1)</script>" } },
					{ type: "image", mimeType: "image/png", data: "iVBORw0KGgo=" },
					{ type: "image", mimeType: "text/html", data: "PHNjcmlwdD4=" },
				],
				usage: { input: 1200, output: 34, totalTokens: 1234, cost: { total: 0.0123 } },
				stopReason: "stop",
				provider: "anthropic",
				model: "claude",
			}),
		},
	];
}

function assertInert(root: ParentNode): void {
	expect(root.querySelectorAll("script, iframe, object, embed, form, svg, style").length).toBe(0);
	for (const el of root.querySelectorAll("*")) {
		for (const attr of el.getAttributeNames()) {
			expect(attr.startsWith("on"), `${el.tagName} has ${attr}`).toBe(false);
			expect(attr).not.toBe("style");
		}
	}
	for (const a of root.querySelectorAll("a")) {
		const href = a.getAttribute("href");
		if (href !== null) expect(href).toMatch(/^(https?:|mailto:)/);
	}
	for (const img of root.querySelectorAll("img")) {
		const src = img.getAttribute("src");
		if (src !== null) expect(src).toMatch(/^data:image\/(png|jpeg|jpg|gif|webp|bmp);base64,/);
	}
	expect((globalThis as { __pwned?: unknown }).__pwned).toBeUndefined();
}

let view: Rendered | null = null;
afterEach(() => {
	view?.unmount();
	view = null;
});

describe("markdown sanitizing", () => {
	it("renders no script, handler, javascript: link, remote image, frame, form or style from content", () => {
		const host = document.createElement("div");
		host.innerHTML = renderMarkdown(HOSTILE);
		assertInert(host);
		// Raw HTML is shown as text rather than dropped silently.
		expect(host.textContent).toContain("<script>");
		// A remote image is not fetched: its src is removed.
		expect(host.querySelector("img[data-blocked-src]")).not.toBeNull();
	});

	it("keeps ordinary markdown: emphasis, lists, safe links, highlighted code", () => {
		const host = document.createElement("div");
		host.innerHTML = renderMarkdown("**bold** and [docs](https://example.com)\n\n- one\n- two\n\n```ts\nconst x: number = 1;\n```");
		expect(host.querySelector("strong")?.textContent).toBe("bold");
		expect(host.querySelector("a")?.getAttribute("href")).toBe("https://example.com");
		expect(host.querySelectorAll("li")).toHaveLength(2);
		expect(host.querySelector("code.hljs span")).not.toBeNull();
	});

	it("sanitizeHtml drops handlers even on allowed tags", () => {
		const host = document.createElement("div");
		host.innerHTML = sanitizeHtml('<p onclick="x()">hi</p><img src="data:image/png;base64,AAAA" onload="x()">');
		assertInert(host);
		expect(host.querySelector("img")?.getAttribute("src")).toBe("data:image/png;base64,AAAA");
	});
});

describe("inspector", () => {
	it("shows a hostile user message without any live element", async () => {
		const h = await harness(new FakeClient(hostileEntries(), { leaf: "a1" }));
		h.rt.store.getState().select("u1");
		view = await render(<Inspector />, h.rt);
		await waitFor(() => view?.byTestId("inspector-body"));
		const body = view.byTestId("inspector-body");
		expect(body).not.toBeNull();
		assertInert(view.container);
		expect(view.byTestId("inspector-kind")?.textContent).toBe("user");
	});

	it("shows an assistant turn in full: thinking collapsible, tool call arguments, images, usage and cost", async () => {
		const h = await harness(new FakeClient(hostileEntries(), { leaf: "a1" }));
		h.rt.store.getState().select("a1");
		view = await render(<Inspector />, h.rt);
		await waitFor(() => view?.byTestId("inspector-body"));
		assertInert(view.container);
		expect(view.byTestId("inspector-thinking")?.tagName).toBe("DETAILS");
		expect(view.byTestId("inspector-tool-call")?.textContent).toContain('"command"');
		const imgs = view.container.querySelectorAll("img.entry-image");
		expect(imgs).toHaveLength(1); // the text/html "image" is refused
		expect(imgs[0].getAttribute("src")).toBe("data:image/png;base64,iVBORw0KGgo=");
		expect(view.byTestId("inspector-usage")?.textContent).toContain("1,234");
		expect(view.byTestId("inspector-usage")?.textContent).toContain("$0.0123");
	});

	it("copy buttons copy the text and the id; a link click opens it outside the app (new window, noopener) and never navigates", async () => {
		const client = new FakeClient([{ id: "u1", parent: null, kind: "user", text: "see [docs](https://example.com/a) or [mail](mailto:a@example.com)" }]);
		const opened: unknown[][] = [];
		const realOpen = window.open;
		window.open = ((...args: unknown[]) => {
			opened.push(args);
			return null;
		}) as typeof window.open;
		const h = await harness(client);
		h.rt.store.getState().select("u1");
		view = await render(<Inspector />, h.rt);
		await waitFor(() => view?.byTestId("inspector-body"));
		await click(view.byTestId("inspector-copy-text"));
		await click(view.byTestId("inspector-copy-id"));
		const links = [...view.container.querySelectorAll(".markdown a")];
		const before = window.location.href;
		for (const link of links) {
			const ev = new MouseEvent("click", { bubbles: true, cancelable: true });
			await settle(() => link.dispatchEvent(ev));
			expect(ev.defaultPrevented).toBe(true);
		}
		window.open = realOpen;
		expect(window.location.href).toBe(before);
		expect(opened).toEqual([
			["https://example.com/a", "_blank", "noopener,noreferrer"],
			["mailto:a@example.com", "_blank", "noopener,noreferrer"],
		]);
		expect(h.copied).toEqual(["see [docs](https://example.com/a) or [mail](mailto:a@example.com)", "u1"]);
	});

	it("a link without a safe address (javascript:, file:) opens nothing", async () => {
		const client = new FakeClient([{ id: "u1", parent: null, kind: "user", text: "[x](javascript:alert(1)) [f](file:///etc/passwd)" }]);
		const opened: unknown[][] = [];
		const realOpen = window.open;
		window.open = ((...args: unknown[]) => {
			opened.push(args);
			return null;
		}) as typeof window.open;
		const h = await harness(client);
		h.rt.store.getState().select("u1");
		view = await render(<Inspector />, h.rt);
		await waitFor(() => view?.byTestId("inspector-body"));
		for (const link of view.container.querySelectorAll(".markdown a")) {
			const ev = new MouseEvent("click", { bubbles: true, cancelable: true });
			await settle(() => link.dispatchEvent(ev));
			expect(ev.defaultPrevented).toBe(true);
		}
		window.open = realOpen;
		expect(opened).toEqual([]);
	});

	it("a failed getEntry is shown in the panel", async () => {
		const client = new FakeClient();
		client.on("getEntry", () => {
			throw new Error("entry u2 is beyond the end of the file");
		});
		const h = await harness(client);
		h.rt.store.getState().select("u2");
		view = await render(<Inspector />, h.rt);
		await waitFor(() => view?.byTestId("inspector")?.textContent?.includes("beyond the end of the file"));
	});
});
