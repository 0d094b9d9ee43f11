// The window's position and size, kept in ~/.arbor/window-state.json between launches. The file is
// ours but may be stale or hand-edited: anything odd falls back to defaults, and a position that is no
// longer on any display is dropped.

import { readFileSync, renameSync } from "node:fs";
import { dirname } from "node:path";
import { makePrivateDir, writePrivateFile } from "../../services/arbor-files";

export interface WindowState {
	x?: number;
	y?: number;
	width: number;
	height: number;
	maximized: boolean;
}

export interface Rect {
	x: number;
	y: number;
	width: number;
	height: number;
}

export const DEFAULT_WINDOW_STATE: WindowState = { width: 1280, height: 820, maximized: false };
const MIN = 400;
const MAX = 20_000;

const finite = (v: unknown): v is number => typeof v === "number" && Number.isFinite(v);

export function loadWindowState(file: string): WindowState {
	let raw: unknown;
	try {
		raw = JSON.parse(readFileSync(file, "utf8"));
	} catch {
		return { ...DEFAULT_WINDOW_STATE };
	}
	if (raw === null || typeof raw !== "object") return { ...DEFAULT_WINDOW_STATE };
	const r = raw as Record<string, unknown>;
	const size = (v: unknown, d: number) => (finite(v) ? Math.min(MAX, Math.max(MIN, Math.round(v))) : d);
	const state: WindowState = {
		width: size(r.width, DEFAULT_WINDOW_STATE.width),
		height: size(r.height, DEFAULT_WINDOW_STATE.height),
		maximized: r.maximized === true,
	};
	if (finite(r.x) && finite(r.y)) {
		state.x = Math.round(r.x);
		state.y = Math.round(r.y);
	}
	return state;
}

/** Drop a saved position whose title bar would not be on any display (a monitor was unplugged). */
export function fitToDisplays(state: WindowState, workAreas: Rect[]): WindowState {
	if (state.x === undefined || state.y === undefined) return state;
	const { x, y } = state;
	const visible = workAreas.some((a) => x + 100 > a.x && x < a.x + a.width - 50 && y >= a.y - 10 && y < a.y + a.height - 50);
	if (visible) return state;
	const { x: _x, y: _y, ...rest } = state;
	return rest;
}

export function saveWindowState(file: string, state: WindowState): void {
	makePrivateDir(dirname(file));
	const tmp = `${file}.${process.pid}.tmp`;
	writePrivateFile(tmp, `${JSON.stringify(state, null, "\t")}\n`);
	renameSync(tmp, file);
}
