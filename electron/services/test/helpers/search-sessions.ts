// A small session file for the search-index tests: a header and a chain of user messages, one per text.
export function searchSession(id: string, texts: string[]): string {
	const lines = [JSON.stringify({ type: "session", version: 3, id, timestamp: "2026-12-01T00:00:00.000Z", cwd: "/w" })];
	texts.forEach((text, i) =>
		lines.push(
			JSON.stringify({
				type: "message",
				id: `${id}-e${i}`,
				parentId: i ? `${id}-e${i - 1}` : null,
				timestamp: "2026-12-01T00:00:01.000Z",
				message: { role: "user", content: [{ type: "text", text }], timestamp: 1 },
			}),
		),
	);
	return `${lines.join("\n")}\n`;
}
