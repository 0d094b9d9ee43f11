// `arbor/raw-records`: raw record names of an agent's session files stay inside its format module
// (electron/session/formats/, docs/formats.md). Everything above reads Arbor's entry model (shared/entries.ts)
// and asks the formats for the rest (lineage, context rules, folders, the agent's name). Reported outside the
// formats folder and tests:
// - a raw name of a format's records (the lists below) read as a property (`h.parentSession`, `h["isSidechain"]`,
//   `{ parentUuid } = r`) or written as a string literal ("session_meta");
// - a comparison with a format id (`writer === "omp"`, `case "codex":`): what differs between formats is a
//   property of the format (formats/registry.ts), not a branch in the rooms above.
// Object-literal keys and type members are not reported: they declare Arbor's own shapes (an API field, a CLI
// JSON key) that may share a name with a raw one.

/** Raw record names per format: names that exist in the agents' files and not in Arbor's entry model. */
export const RAW_NAMES = {
	// pi: the lineage header keys (formats read them into a Lineage) and v1's compaction index (migrated in memory).
	pi: ["parentSession", "branchedFrom", "firstKeptEntryIndex"],
	// omp 18.3: header fields of its own, its title slot's padding, its context rules' record fields.
	omp: [
		"titleSource",
		"additionalDirectories",
		"previousSessionFiles",
		"providerPromptCacheKey",
		"retryRecovery",
		"preserveData",
		"openaiRemoteCompaction",
		"anthropicCompaction",
		"providerReplayThroughEntryId",
	],
	// Claude Code: uuid links, sidechains (subagents), compaction boundaries, forks, bookkeeping records.
	claude: [
		"parentUuid",
		"logicalParentUuid",
		"isSidechain",
		"leafUuid",
		"forkedFrom",
		"isCompactSummary",
		"compact_boundary",
		"queue-operation",
		"last-prompt",
	],
	// Codex: rollout line types, fork fields, rollbacks.
	codex: [
		"session_meta",
		"response_item",
		"event_msg",
		"turn_context",
		"world_state",
		"token_usage_record",
		"forked_from_id",
		"forked_from_ordinal_exclusive",
		"thread_rolled_back",
	],
};

/** Format ids that may not be compared with outside the formats ("pi" is also a search scope and a settings source, so it is not listed). */
export const FORMAT_IDS = ["omp", "claude", "codex"];

const OWNER = new Map(Object.entries(RAW_NAMES).flatMap(([format, names]) => names.map((n) => [n, format])));
const IDS = new Set(FORMAT_IDS);
const FORMATS_FOLDER = "electron/session/formats/";

const stringOf = (node) => {
	if (!node) return undefined;
	if (node.type === "Literal" && typeof node.value === "string") return node.value;
	if (node.type === "TemplateLiteral" && node.expressions.length === 0) return node.quasis[0].value.cooked;
	return undefined;
};

/** The rule, for files outside `electron/session/formats/`; `exempt(rel)` says which files it skips (tests). */
export function rawRecordsRule(root, relative, posix, exempt) {
	return {
		meta: {
			type: "problem",
			docs: { description: "Keep raw record names of pi / omp / Claude / Codex files inside their format modules (docs/formats.md)." },
			messages: {
				raw: 'Raw record name "{{name}}" of the {{format}} format outside electron/session/formats/: ask the format (docs/formats.md).',
				id: 'Comparison with the format id "{{name}}" outside electron/session/formats/: make it a property of the format (formats/registry.ts).',
			},
			schema: [],
		},
		create(context) {
			const rel = posix(relative(root, context.filename));
			if (rel.startsWith("..") || rel.startsWith(FORMATS_FOLDER) || exempt(rel)) return {};
			const raw = (node, name) => {
				const format = OWNER.get(name);
				if (format) context.report({ node, messageId: "raw", data: { name, format } });
			};
			const id = (node) => {
				const s = stringOf(node);
				if (s !== undefined && IDS.has(s)) context.report({ node, messageId: "id", data: { name: s } });
			};
			return {
				Literal(n) {
					if (typeof n.value !== "string") return;
					// Object keys and type members declare Arbor's own shapes; the property rules below handle reads.
					const p = n.parent;
					if (p && (p.type === "Property" || p.type === "TSPropertySignature") && p.key === n && p.parent?.type !== "ObjectPattern") return;
					if (p && (p.type === "ImportDeclaration" || p.type === "ExportNamedDeclaration" || p.type === "ExportAllDeclaration")) return;
					raw(n, n.value);
				},
				TemplateLiteral(n) {
					const s = stringOf(n);
					if (s !== undefined) raw(n, s);
				},
				MemberExpression(n) {
					if (!n.computed && n.property.type === "Identifier") raw(n.property, n.property.name);
				},
				"ObjectPattern > Property"(n) {
					if (!n.computed && n.key.type === "Identifier") raw(n.key, n.key.name);
				},
				BinaryExpression(n) {
					if (["===", "!==", "==", "!="].includes(n.operator)) {
						id(n.left);
						id(n.right);
					}
				},
				SwitchCase(n) {
					id(n.test);
				},
			};
		},
	};
}
