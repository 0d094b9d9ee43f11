// Arbor's own settings (~/.arbor/settings.json): read leniently, written atomically (temp + fsync + rename).
// Where Arbor has no value yet, pi's settings.json supplies the tree defaults pi users already chose.

import * as path from "node:path";
import type { ArborSettings, FilterMode, ModelSettings } from "../../shared/api";
import { FILTER_MODES } from "../../shared/api";
import { writeReplacingFile } from "../session";
import { makePrivateDir } from "./arbor-files";
import { readJsonFile } from "./fs-util";
import { isRecord } from "../../shared/guards";

export const RECENT_FILES_MAX = 20;

export function defaultSettings(): ArborSettings {
	return {
		model: {},
		doubleEscapeAction: "tree",
		treeFilterMode: "default",
		skipSummaryPrompt: false,
		layoutDirection: "rows",
		recentFiles: [],
		enabledExtensions: [],
		hiddenBranches: {},
	};
}

function str(v: unknown): string | undefined {
	return typeof v === "string" && v.trim() !== "" ? v : undefined;
}

function normaliseModel(v: unknown): ModelSettings {
	if (!isRecord(v)) return {};
	const out: ModelSettings = {};
	const provider = str(v.provider);
	const modelId = str(v.modelId);
	const baseUrl = str(v.baseUrl);
	const api = str(v.api);
	const apiKey = str(v.apiKey);
	if (provider) out.provider = provider;
	if (modelId) out.modelId = modelId;
	if (baseUrl) out.baseUrl = baseUrl;
	if (api) out.api = api;
	if (apiKey) out.apiKey = apiKey;
	return out;
}

/** Merge untrusted JSON (a hand-edited file, a client's partial update) over a base, field by field. */
export function mergeSettings(base: ArborSettings, patch: unknown): ArborSettings {
	const out: ArborSettings = {
		...base,
		model: { ...base.model },
		recentFiles: [...base.recentFiles],
		enabledExtensions: [...(base.enabledExtensions ?? [])],
		hiddenBranches: { ...base.hiddenBranches },
	};
	if (!isRecord(patch)) return out;
	if ("model" in patch) out.model = normaliseModel(patch.model);
	if (patch.doubleEscapeAction === "tree" || patch.doubleEscapeAction === "branch") out.doubleEscapeAction = patch.doubleEscapeAction;
	if (typeof patch.treeFilterMode === "string" && (FILTER_MODES as readonly string[]).includes(patch.treeFilterMode)) {
		out.treeFilterMode = patch.treeFilterMode as FilterMode;
	}
	if (typeof patch.skipSummaryPrompt === "boolean") out.skipSummaryPrompt = patch.skipSummaryPrompt;
	if (patch.layoutDirection === "rows" || patch.layoutDirection === "TB" || patch.layoutDirection === "LR") out.layoutDirection = patch.layoutDirection;
	if (Array.isArray(patch.recentFiles)) {
		out.recentFiles = patch.recentFiles.filter((f): f is string => typeof f === "string").slice(0, RECENT_FILES_MAX);
	}
	if (Array.isArray(patch.enabledExtensions)) {
		out.enabledExtensions = [...new Set(patch.enabledExtensions.filter((f): f is string => typeof f === "string" && f !== ""))];
	}
	if (isRecord(patch.hiddenBranches)) {
		const hidden: Record<string, string[]> = {};
		for (const [file, ids] of Object.entries(patch.hiddenBranches)) {
			if (!Array.isArray(ids)) continue;
			const list = [...new Set(ids.filter((id): id is string => typeof id === "string" && id !== ""))];
			if (list.length > 0) hidden[file] = list;
		}
		out.hiddenBranches = hidden;
	}
	return out;
}

/** pi's own choices for the tree UI, used only for fields Arbor's file does not set. */
function piTreeDefaults(piAgentDir: string): Partial<ArborSettings> {
	const pi = readJsonFile(path.join(piAgentDir, "settings.json"));
	if (!isRecord(pi)) return {};
	const out: Partial<ArborSettings> = {};
	// pi's values are "tree" | "fork" | "none"; "fork" is pi's name for what Arbor calls /branch.
	if (pi.doubleEscapeAction === "tree") out.doubleEscapeAction = "tree";
	if (pi.doubleEscapeAction === "fork") out.doubleEscapeAction = "branch";
	if (typeof pi.treeFilterMode === "string" && (FILTER_MODES as readonly string[]).includes(pi.treeFilterMode)) {
		out.treeFilterMode = pi.treeFilterMode as FilterMode;
	}
	if (isRecord(pi.branchSummary) && typeof pi.branchSummary.skipPrompt === "boolean") {
		out.skipSummaryPrompt = pi.branchSummary.skipPrompt;
	}
	return out;
}

export class SettingsStore {
	readonly file: string;
	readonly #piAgentDir: string;

	constructor(settingsDir: string, piAgentDir: string) {
		this.file = path.join(settingsDir, "settings.json");
		this.#piAgentDir = piAgentDir;
	}

	/** Read fresh each time: the file is small and may be edited by hand while Arbor runs. */
	load(): ArborSettings {
		const own = readJsonFile(this.file);
		const base = mergeSettings(defaultSettings(), piTreeDefaults(this.#piAgentDir));
		return mergeSettings(base, own);
	}

	update(patch: Partial<ArborSettings>): ArborSettings {
		const next = mergeSettings(this.load(), patch);
		this.#write(next);
		return next;
	}

	addRecentFile(file: string): void {
		const cur = this.load();
		const recent = [file, ...cur.recentFiles.filter((f) => f !== file)].slice(0, RECENT_FILES_MAX);
		this.#write({ ...cur, recentFiles: recent });
	}

	#write(settings: ArborSettings): void {
		makePrivateDir(path.dirname(this.file));
		// 0600: the file may hold an API key.
		writeReplacingFile(this.file, [Buffer.from(`${JSON.stringify(settings, null, "\t")}\n`, "utf8")], 0o600);
	}
}
