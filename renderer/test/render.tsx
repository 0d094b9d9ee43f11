// Minimal React rendering for jsdom tests (no testing-library dependency): mount inside act(), with
// the app's store and services providers around the element.

import { act, type ReactElement } from "react";
import { createRoot, type Root } from "react-dom/client";
import { ServicesContext } from "../commands/services";
import { GraphContext } from "../graph/store";
import type { AppRuntime } from "../runtime";
import { StoreContext } from "../store";

(globalThis as { IS_REACT_ACT_ENVIRONMENT?: boolean }).IS_REACT_ACT_ENVIRONMENT = true;

export interface Rendered {
	container: HTMLElement;
	root: Root;
	unmount(): void;
	byTestId(id: string): HTMLElement | null;
	allByTestId(id: string): HTMLElement[];
}

export async function render(ui: ReactElement, rt?: AppRuntime): Promise<Rendered> {
	const container = document.createElement("div");
	document.body.appendChild(container);
	const root = createRoot(container);
	const wrapped = rt ? (
		<StoreContext.Provider value={rt.store}>
			<ServicesContext.Provider value={rt.services}>
				<GraphContext.Provider value={rt.graph}>{ui}</GraphContext.Provider>
			</ServicesContext.Provider>
		</StoreContext.Provider>
	) : (
		ui
	);
	await act(async () => {
		root.render(wrapped);
	});
	return {
		container,
		root,
		unmount() {
			act(() => root.unmount());
			container.remove();
		},
		byTestId: (id) => container.querySelector<HTMLElement>(`[data-testid="${id}"]`),
		allByTestId: (id) => [...container.querySelectorAll<HTMLElement>(`[data-testid="${id}"]`)],
	};
}

/** Run an update (event emission, click) and let React and pending promises settle. */
export async function settle(fn?: () => unknown): Promise<void> {
	await act(async () => {
		await fn?.();
		for (let i = 0; i < 5; i++) await new Promise((r) => setTimeout(r, 0));
	});
}

export async function click(el: Element | null): Promise<void> {
	if (!el) throw new Error("click: element not found");
	await settle(() => (el as HTMLElement).click());
}

/** Set a controlled input's value the way React notices (the native setter, then an input event). */
export async function typeInto(el: Element | null, value: string): Promise<void> {
	if (!el) throw new Error("typeInto: element not found");
	const proto = el instanceof HTMLTextAreaElement ? HTMLTextAreaElement.prototype : HTMLInputElement.prototype;
	await settle(() => {
		Object.getOwnPropertyDescriptor(proto, "value")?.set?.call(el, value);
		el.dispatchEvent(new Event("input", { bubbles: true }));
	});
}

/**
 * Let React and timers run until `check` holds (panels fetch after a short delay). The bound only keeps a
 * broken build from hanging: generous, since CI shares two cores with the other runners.
 */
export async function waitFor(check: () => unknown, timeoutMs = 20_000): Promise<void> {
	const end = Date.now() + timeoutMs;
	for (;;) {
		await settle();
		if (check()) return;
		if (Date.now() > end) throw new Error("waitFor: condition not met in time");
		await act(async () => {
			await new Promise((r) => setTimeout(r, 20));
		});
	}
}
