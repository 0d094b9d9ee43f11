// Runtime schemas for every request's params. The renderer is not trusted (it renders hostile session
// content, and the browser host's socket is reachable by any local process that has the token), so every
// object is strict (unknown keys rejected) and every string and list is bounded.

import { z } from "zod";
import { FILTER_MODES, type RequestName, type RequestParams } from "../../shared/api";
import { MAX_TRIES, MIN_TRIES, TRY_THINKING_LEVELS } from "../../shared/tries";

/** Largest page of previews one request may ask for (shared/api.ts: pages of <= 2000). */
export const MAX_PREVIEW_PAGE = 2000;
export const MAX_PATH = 4096;
export const MAX_ID = 1024;
export const MAX_TEXT = 1_000_000;

const path = z
	.string()
	.min(1)
	.max(MAX_PATH)
	.refine((p) => !p.includes("\0"), "path contains a NUL byte");
const sessionId = z.string().min(1).max(256);
const entryId = z.string().min(1).max(MAX_ID);
const empty = z.strictObject({});
const withSession = z.strictObject({ sessionId });

const filterMode = z.enum(FILTER_MODES as [string, ...string[]]).transform((m) => m as (typeof FILTER_MODES)[number]);

const modelSettings = z.strictObject({
	provider: z.string().max(200).optional(),
	modelId: z.string().max(500).optional(),
	baseUrl: z
		.string()
		.max(2048)
		.refine((u) => u === "" || /^https?:\/\//i.test(u), "baseUrl must be an http(s) URL")
		.optional(),
	api: z.string().max(200).optional(),
	apiKey: z.string().max(10_000).optional(),
	/** Echoed back by clients from getSettings; ignored. */
	apiKeySet: z.boolean().optional(),
});

const settingsPatch = z.strictObject({
	model: modelSettings.optional(),
	doubleEscapeAction: z.enum(["tree", "branch"]).optional(),
	treeFilterMode: filterMode.optional(),
	skipSummaryPrompt: z.boolean().optional(),
	layoutDirection: z.enum(["rows", "TB", "LR"]).optional(),
	recentFiles: z.array(path).max(100).optional(),
	hiddenBranches: z.record(path, z.array(entryId).max(10_000)).optional(),
});

/** One side of a compare across files: the router checks its path against the path policy. */
const compareSide = z.strictObject({ path, leafId: entryId.optional() });

const runId = z.string().regex(/^[\w-]{1,64}$/, "not a tries run id");
const tryIndex = z
	.number()
	.int()
	.min(0)
	.max(MAX_TRIES - 1);
const trySpec = z.strictObject({
	prompt: z.string().min(1).max(MAX_TEXT),
	model: z
		.string()
		.max(700)
		.regex(/^[^/\s]+\/\S+$/, "model must be PROVIDER/ID")
		.optional(),
	thinking: z.enum(TRY_THINKING_LEVELS).optional(),
	capUsd: z.number().positive().max(1e6).optional(),
	capTokens: z.number().int().positive().max(1e12).optional(),
});

type Schemas = { [K in RequestName]: z.ZodType<RequestParams<K>, unknown> };

export const requestSchemas: Schemas = {
	openSession: z.strictObject({ path }),
	closeSession: withSession,
	getInitialSessions: empty,
	listSessions: z.strictObject({ dirs: z.array(path).max(64).optional() }),
	getFamily: z.strictObject({ path }),
	searchAllSessions: z.strictObject({
		query: z.string().max(1000),
		limit: z.number().int().min(1).max(500).optional(),
		dirs: z.array(path).max(64).optional(),
	}),
	getSkeleton: withSession,
	getFirstSkeleton: withSession,
	getPreviews: z.strictObject({ sessionId, indices: z.array(z.number().int().min(0).max(0x7fffffff)).max(MAX_PREVIEW_PAGE) }),
	getCardFacts: z.strictObject({ sessionId, indices: z.array(z.number().int().min(0).max(0x7fffffff)).max(MAX_PREVIEW_PAGE) }),
	getUsageRollup: withSession,
	getEntry: z.strictObject({ sessionId, id: entryId }),
	entryAtLine: z.strictObject({ sessionId, line: z.number().int().min(1).max(0x7fffffff) }),
	getContext: z.strictObject({ sessionId, leafId: entryId.nullable(), as: z.enum(["pi", "omp"]).optional() }),
	search: z.strictObject({ sessionId, query: z.string().max(10_000), scope: z.enum(["pi", "full"]), by: z.enum(["toolbar", "branches"]).optional() }),
	previewNavigation: z.strictObject({ sessionId, targetId: entryId }),
	navigate: z.strictObject({
		sessionId,
		targetId: entryId,
		summarize: z.boolean().optional(),
		customInstructions: z.string().max(100_000).optional(),
		replaceInstructions: z.boolean().optional(),
		label: z.string().max(10_000).optional(),
		waitForIdle: z.boolean().optional(),
	}),
	branchToFile: z.strictObject({ sessionId, entryId, waitForIdle: z.boolean().optional() }),
	setLabel: z.strictObject({ sessionId, entryId, label: z.string().max(10_000).nullable() }),
	savePosition: z.strictObject({ sessionId, entryId: entryId.optional() }),
	getResumePoint: withSession,
	appendUserMessage: z.strictObject({ sessionId, text: z.string().max(MAX_TEXT) }),
	leafHistory: z.strictObject({ sessionId, direction: z.enum(["back", "forward"]) }),
	upgradeLegacy: withSession,
	getSettings: empty,
	getPiConnection: empty,
	connectPi: empty,
	setSettings: z.strictObject({ settings: settingsPatch }),
	getActiveModel: z.strictObject({ sessionId: sessionId.optional() }),
	listCommands: empty,
	runExtensionCommand: z.strictObject({
		sessionId,
		name: z.string().min(1).max(200),
		entryId: entryId.optional(),
		args: z.string().max(100_000).optional(),
	}),
	listExtensions: empty,
	setExtensionEnabled: z.strictObject({ path, enabled: z.boolean() }),
	cancel: withSession,
	compareBranches: z.union([z.strictObject({ sessionId, a: entryId, b: entryId }), z.strictObject({ a: compareSide, b: compareSide })]),
	getRollupCosts: withSession,
	getSubtreeStats: z.strictObject({ sessionId, entryId }),
	exportBranch: z.strictObject({ sessionId, leafId: entryId.optional(), format: z.enum(["md", "html", "jsonl"]) }),
	savePrunedCopy: z.strictObject({ sessionId, dropIds: z.array(entryId).min(1).max(10_000) }),
	showOpenDialog: empty,
	revealInFolder: withSession,
	getLiveState: withSession,
	send: z.strictObject({
		sessionId,
		text: z.string().min(1).max(MAX_TEXT),
		deliverAs: z.enum(["steer", "followUp"]).optional(),
		wait: z.enum(["start", "end"]).optional(),
	}),
	abort: withSession,
	startTries: z.strictObject({ sessionId, entryId, tries: z.array(trySpec).min(MIN_TRIES).max(MAX_TRIES) }),
	stopTries: z.strictObject({ runId, index: tryIndex.optional() }),
	keepTry: z.strictObject({ runId, index: tryIndex }),
	discardTries: z.strictObject({ runId }),
	getTryDiff: z.strictObject({ runId, index: tryIndex, path: path.optional() }),
	listTries: empty,
	prepareTries: withSession,
};

/** "field.path: message" for the first few issues, so the client sees which argument was wrong. */
export function describeZodError(name: string, error: z.ZodError): string {
	const parts = error.issues.slice(0, 3).map((issue) => {
		const where = issue.path.length > 0 ? issue.path.map(String).join(".") : "params";
		return `${where}: ${issue.message}`;
	});
	const more = error.issues.length > 3 ? ` (+${error.issues.length - 3} more)` : "";
	return `invalid params for ${name}: ${parts.join("; ")}${more}`;
}
