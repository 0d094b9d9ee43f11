// Links in session content open outside the app, never in its own window or tab: in the desktop app
// window.open reaches the main process's window-open handler (a confirm, then the system browser); in the
// browser host it opens a new tab that cannot reach back (noopener, noreferrer). Only http, https and
// mailto links; markdown.ts removes any other href.

const OPENABLE = /^(?:https?:|mailto:)/i;

/** Open `href` outside the app; false when it is not a link that may leave it. */
export function openOutside(
	href: string | null | undefined,
	open: (url: string, target: string, features: string) => unknown = (u, t, f) => window.open(u, t, f),
): boolean {
	if (!href || !OPENABLE.test(href.trim())) return false;
	open(href.trim(), "_blank", "noopener,noreferrer");
	return true;
}

/** Click handler for rendered content: a link click opens outside and never navigates the page. */
export function onContentLinkClick(e: { target: EventTarget | null; preventDefault(): void }): void {
	const a = (e.target as Element | null)?.closest?.("a");
	if (!a) return;
	e.preventDefault();
	openOutside(a.getAttribute("href"));
}
