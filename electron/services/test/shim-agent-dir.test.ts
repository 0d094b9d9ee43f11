// The extension shim's getAgentDir (pi's API) answers through the session core's folder rule
// (electron/session/agent-dirs.ts), so "~" in $PI_CODING_AGENT_DIR is expanded like everywhere else.
import { homedir } from "node:os";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import { piCodingAgentShim } from "../extensions/pi-coding-agent-shim";

describe("getAgentDir without a configured host", () => {
	const saved = process.env.PI_CODING_AGENT_DIR;
	afterEach(() => {
		if (saved === undefined) delete process.env.PI_CODING_AGENT_DIR;
		else process.env.PI_CODING_AGENT_DIR = saved;
	});

	it('the extension shim\'s getAgentDir expands ~ in $PI_CODING_AGENT_DIR (it used to return the raw "~/…")', () => {
		process.env.PI_CODING_AGENT_DIR = "~/pi-from-env";
		const getAgentDir = piCodingAgentShim().getAgentDir as () => string;
		expect(getAgentDir()).toBe(join(homedir(), "pi-from-env"));
	});
});
