// The session tab strip, on its own row under the toolbar: one tab per open session, named by the session
// (shortened from the middle; the full name and the path on hover). The names are shortened further (down
// to MIN_CHARS) when that lets every tab fit in the row. When even that does not fit, the strip moves by whole tabs: a tab is never cut at its left edge, the active one is always whole, and each side
// with tabs out of view shows an arrow with their count (the right edge also fades over a tab it cuts).
// A scrolling box with a scrollbar showed whichever pixel the active tab needed, so the tab before it
// read "he weath…ix it?" with nothing saying more tabs were there.

import { useCallback, useLayoutEffect, useRef, useState } from "react";
import { useApp } from "../store";
import { LiveTabDot } from "./LiveBadge";
import { Shown } from "../graph/Shown";
import { shortenMiddle, useSessionName } from "./session-name";

/** Characters a tab shows at most: its name shortened from the middle. */
const TAB_CHARS = 40;
/**
 * Fewest characters a name is shortened to: 13 from its start and 8 from its end, a few words of each, so
 * names that start alike still read apart; at 14 two tabs both read "Add node…ssion" (issue 38 item 4).
 */
const MIN_CHARS = 22;

let measurer: CanvasRenderingContext2D | null | undefined;
/** Width of `text` in the font of `el` (px). */
function textWidth(el: Element, text: string): number {
	if (measurer === undefined) measurer = typeof document === "undefined" ? null : document.createElement("canvas").getContext("2d");
	if (!measurer) return text.length * 7;
	measurer.font = getComputedStyle(el).font;
	return measurer.measureText(text).width;
}

/**
 * The most characters per name (MIN_CHARS..TAB_CHARS) with which every tab fits in the room the tab row
 * leaves the strip (its width less its arrows, and the toolbar's free space); MIN_CHARS when none does.
 * The room is the strip's less its arrows: the toolbar shares its width by each item's content (the
 * search field shrinks eight times as fast as the strip), so a strip showing arrows is given more room than
 * the same strip without them, and judging on that room flipped the arrows on and off on every frame (two
 * tabs at 1280 px, React's "Maximum update depth exceeded", a blank page). Once the arrows are shown they
 * go only when the tabs fit beside them or the toolbar has room to spare.
 */
function fittingChars(nav: HTMLElement, box: HTMLElement, tabs: HTMLElement[]): { chars: number; fits: boolean } {
	const bar = nav.parentElement;
	if (!bar) return { chars: TAB_CHARS, fits: true };
	const bs = getComputedStyle(bar);
	let used = 0;
	// What grows to fill the toolbar (its spacer) is free room too.
	for (const c of Array.from(bar.children)) if (parseFloat(getComputedStyle(c).flexGrow) === 0) used += (c as HTMLElement).offsetWidth;
	const free = bar.clientWidth - parseFloat(bs.paddingLeft) - parseFloat(bs.paddingRight) - used - (parseFloat(bs.columnGap) || 0) * (bar.children.length - 1);
	// The strip's own width less its arrows (its box can be narrower than the strip: it wraps its tabs).
	const ns = getComputedStyle(nav);
	let arrows = 0;
	for (const c of Array.from(nav.children)) if (c !== box) arrows += (c as HTMLElement).offsetWidth + (parseFloat(ns.columnGap) || 0);
	const room = nav.clientWidth - arrows + Math.max(0, free) - 1;
	const gap = tabs.length > 1 ? tabs[1].offsetLeft - tabs[0].offsetLeft - tabs[0].offsetWidth : 0;
	// Each tab's width without its label, and its full name.
	const parts = tabs.map((t) => {
		const b = t.querySelector("button");
		return { b, rest: t.offsetWidth - (b ? textWidth(b, b.textContent ?? "") : 0), full: b?.getAttribute("aria-label") ?? "" };
	});
	for (let n = TAB_CHARS; n >= MIN_CHARS; n--) {
		let total = gap * (tabs.length - 1);
		for (const p of parts) total += p.rest + (p.b ? textWidth(p.b, shortenMiddle(p.full, n)) : 0);
		if (total <= room) return { chars: n, fits: true };
	}
	return { chars: MIN_CHARS, fits: false };
}

interface StripView {
	/** The tabs need more room than the strip has. */
	over: boolean;
	/** Index of the tab at the strip's left edge. */
	first: number;
	/** Tabs out of view, or cut, at the right edge. */
	right: number;
	/** How far the box is scrolled (px): the left edge of tab `first`. */
	x: number;
}

const FITS: StripView = { over: false, first: 0, right: 0, x: 0 };

/** The tabs of the row (not the filler after them). */
function tabsIn(row: HTMLElement | null): HTMLElement[] {
	return row ? (Array.from(row.children) as HTMLElement[]).filter((c) => c.classList.contains("tab")) : [];
}

export function SessionTabs() {
	const order = useApp((s) => s.order);
	const sessions = useApp((s) => s.sessions);
	const active = useApp((s) => s.activeSessionId);
	const setActive = useApp((s) => s.setActive);
	const close = useApp((s) => s.closeSession);
	const nav = useRef<HTMLElement>(null);
	const box = useRef<HTMLDivElement>(null);
	const row = useRef<HTMLDivElement>(null);
	const [view, setView] = useState<StripView>(FITS);
	const [chars, setChars] = useState(TAB_CHARS);
	const charsRef = useRef(chars);
	charsRef.current = chars;
	const viewRef = useRef(view);
	viewRef.current = view;
	const activeIndex = order.indexOf(active ?? "");
	const activeRef = useRef(activeIndex);
	activeRef.current = activeIndex;
	// The view follows the active tab until the user moves the strip away from it (arrows, wheel).
	const followActive = useRef(true);

	/**
	 * Put tab `want` at the left edge, or, with `show`, the nearest position from the current one that
	 * shows tab `show` whole. Never leaves room at the right that earlier tabs could fill.
	 */
	const place = useCallback((want: number, show = -1): StripView | undefined => {
		const el = box.current;
		const tabs = tabsIn(row.current);
		if (!el || tabs.length === 0) return undefined;
		// First the names' length; the strip is placed again once the tabs are drawn with it.
		const { chars: n, fits } = nav.current ? fittingChars(nav.current, el, tabs) : { chars: TAB_CHARS, fits: true };
		if (n !== charsRef.current) {
			setChars(n);
			return undefined;
		}
		const width = el.clientWidth;
		const left = (k: number): number => tabs[k].offsetLeft - tabs[0].offsetLeft;
		const right = (k: number): number => left(k) + tabs[k].offsetWidth;
		const last = tabs.length - 1;
		let next: StripView;
		// Fitting is judged on the strip's whole room: the arrows, once shown, would keep it from fitting.
		if (fits || right(last) <= width + 0.5) next = FITS;
		else {
			let f = Math.max(0, Math.min(last, want));
			if (show >= 0) {
				if (show < f) f = show;
				while (f < show && right(show) - left(f) > width + 0.5) f++;
			}
			while (f > 0 && right(last) - left(f - 1) <= width + 0.5) f--;
			const x = left(f);
			next = { over: true, first: f, right: tabs.filter((_, k) => right(k) - x > width + 0.5).length, x };
		}
		const cur = viewRef.current;
		if (cur.over !== next.over || cur.first !== next.first || cur.right !== next.right || cur.x !== next.x) setView(next);
		return next;
	}, []);
	// The box scrolls to the left edge of the first tab shown (a filler after the tabs lets it reach the
	// last one's).
	useLayoutEffect(() => {
		if (box.current && Math.abs(box.current.scrollLeft - view.x) > 0.5) box.current.scrollLeft = view.x;
	});

	// The active tab comes into view whole; a resize (of the window, or of the tabs as their names load)
	// keeps the left tab where it is when it can.
	useLayoutEffect(() => {
		followActive.current = true;
		place(viewRef.current.first, activeIndex);
	}, [place, activeIndex, order.length, view.over, chars]);
	useLayoutEffect(() => {
		if (!box.current || !row.current || typeof ResizeObserver === "undefined") return;
		const ro = new ResizeObserver(() => place(viewRef.current.first, followActive.current ? activeRef.current : -1));
		ro.observe(box.current);
		ro.observe(row.current);
		return () => ro.disconnect();
	}, [place, order.length]);

	if (order.length < 2) return null;
	const { over, first, right } = view;
	const move = (to: number): void => {
		followActive.current = false;
		place(to);
	};
	return (
		<div className="tab-bar">
			<nav ref={nav} className={`tab-strip${over ? " is-over" : ""}`} aria-label="Open sessions">
				{over && <MoreTabs side="left" count={first} onClick={() => move(first - 1)} />}
				<div
					ref={box}
					className={`tabs${over && right > 0 ? " more-right" : ""}`}
					data-testid="tabs-scroller"
					// The browser scrolls the box itself to show a focused tab (or a find-in-page hit): the strip lands
					// on whole tabs around what it scrolled to.
					onScroll={(e) => {
						const el = e.currentTarget;
						const cur = viewRef.current;
						const to = el.scrollLeft;
						if (Math.abs(to - cur.x) <= 0.5) return;
						const tabs = tabsIn(row.current);
						const left = (k: number): number => tabs[k].offsetLeft - tabs[0].offsetLeft;
						let k = 0;
						if (to < cur.x) while (k + 1 < tabs.length && left(k + 1) <= to + 0.5) k++;
						else while (k + 1 < tabs.length && left(k + 1) < to + el.clientWidth) k++;
						const next = to < cur.x ? place(k) : place(cur.first, k);
						el.scrollLeft = (next ?? cur).x;
					}}
					onFocus={(e) => {
						// Only for keyboard focus: a click's own focus moving the tab would leave the mouse-up on another
						// element, and the click would be lost (the click makes the tab active, which brings it into view).
						if (!(e.target instanceof HTMLElement) || !e.target.matches(":focus-visible")) return;
						const k = tabsIn(row.current).indexOf((e.target as HTMLElement).closest(".tab") as HTMLElement);
						if (k < 0) return;
						followActive.current = k === activeRef.current;
						place(viewRef.current.first, k);
					}}
					onWheel={(e) => {
						const d = Math.abs(e.deltaX) > Math.abs(e.deltaY) ? e.deltaX : e.deltaY;
						if (over && d !== 0) move(first + Math.sign(d));
					}}
				>
					<div ref={row} className="tabs-row">
						{order.map((id) => {
							const s = sessions[id];
							if (!s) return null;
							return (
								<SessionTab
									key={id}
									id={id}
									chars={chars}
									active={id === active}
									path={s.summary.path}
									onOpen={() => setActive(id)}
									onClose={() => void close(id)}
								/>
							);
						})}
						{over && <span className="tabs-fill" aria-hidden="true" />}
					</div>
				</div>
				{over && <MoreTabs side="right" count={right} onClick={() => move(first + 1)} />}
			</nav>
		</div>
	);
}

/** The arrow on one side of the strip: how many tabs are out of view there; a click moves the strip one tab. */
function MoreTabs({ side, count, onClick }: { side: "left" | "right"; count: number; onClick(): void }) {
	const what = `${count} more tab${count === 1 ? "" : "s"} on the ${side}`;
	const shown = count > 0 ? String(count) : "";
	return (
		<button
			type="button"
			className="tabs-more"
			data-testid={`tabs-more-${side}`}
			disabled={count === 0}
			aria-label={what}
			title={count > 0 ? what : `No more tabs on the ${side}`}
			onClick={onClick}
		>
			{side === "left" ? `‹${shown && ` ${shown}`}` : `${shown && `${shown} `}›`}
		</button>
	);
}

interface TabProps {
	id: string;
	chars: number;
	active: boolean;
	path: string | null;
	onOpen(): void;
	onClose(): void;
}

function SessionTab({ id, chars, active, path, onOpen, onClose }: TabProps) {
	// The session's name (or first user message), the full name and the path on hover: never a raw
	// timestamp_uuid file name, and never cut to its first letter.
	const full = useSessionName(id, 300);
	const name = shortenMiddle(full, chars);
	return (
		<div className={`tab${active ? " active" : ""}`} data-testid="session-tab">
			<button type="button" onClick={onOpen} title={`${full}\n${path ?? "in memory"}`} aria-label={full} aria-current={active ? "true" : undefined}>
				<LiveTabDot sessionId={id} />
				<Shown text={name} />
			</button>
			<button type="button" aria-label={`Close ${full}`} title="Close" onClick={onClose}>
				×
			</button>
		</div>
	);
}
