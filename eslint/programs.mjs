// The local ESLint rule `arbor/program-path` (docs/security.md "Programs"): product code never hands a program
// NAME to child_process. `spawn("git", …)` makes the system search PATH, empty and relative entries included, so
// a `git` or `pi` in the folder Arbor runs in would run; a program is found on absolute PATH entries by
// shared-node/programs.ts (`findProgram`, `programPath`) and run by the absolute path it returns. The rule flags
// a spawn-family call whose program is written in the source (a string or template literal): such a value is a
// bare name or a fixed path that skipped that lookup. process.execPath and resolved paths are variables.

const SPAWNERS = new Set(["spawn", "spawnSync", "execFile", "execFileSync", "exec", "execSync", "fork"]);

const calleeName = (callee) => {
	if (callee.type === "Identifier") return callee.name;
	if (callee.type === "MemberExpression" && !callee.computed && callee.property.type === "Identifier") return callee.property.name;
	return null;
};

const rule = {
	meta: {
		type: "problem",
		docs: { description: "programs are run by the absolute path shared-node/programs.ts finds, never by a name" },
		messages: {
			name: "Run {{program}} by its absolute path: findProgram / programPath (shared-node/programs.ts) look on absolute PATH entries only.",
		},
		schema: [],
	},
	create(context) {
		return {
			CallExpression(n) {
				const name = calleeName(n.callee);
				if (!name || !SPAWNERS.has(name)) return;
				// `re.exec(text)` is a RegExp, not a process: a member call counts only on the module's usual names.
				const onModule =
					n.callee.type !== "MemberExpression" || (n.callee.object.type === "Identifier" && /^(child_process|cp|childProcess)$/.test(n.callee.object.name));
				if (!onModule) return;
				const first = n.arguments[0];
				if (!first) return;
				const literal = (first.type === "Literal" && typeof first.value === "string") || first.type === "TemplateLiteral";
				if (literal)
					context.report({ node: first, messageId: "name", data: { program: first.type === "Literal" ? JSON.stringify(first.value) : "a program" } });
			},
		};
	},
};

export default rule;
