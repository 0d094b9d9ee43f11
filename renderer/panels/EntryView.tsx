// One entry in full (the inspector's body): markdown text, thinking (collapsible), tool calls with
// pretty arguments, tool results, images (data: URLs built from base64 blocks only), usage and cost.
// Every field is read defensively: the entry comes from an untrusted file.

import { memo, useLayoutEffect, useMemo, useRef } from "react";
import type { ContentBlock, SessionEntry } from "../../shared/entries";
import { ContextEditView, Field, isOmpRecordType, OmpRecordView, SystemMessageView, UsageLineView } from "./EntryFacts";
import { blocksOf, prettyJson, str } from "./entry-text";

export { prettyJson };
import { onContentLinkClick } from "./links";
import { highlightCode, renderMarkdown, SAFE_IMAGE_URL, sanitizeHtml } from "./markdown";
import { isRecord } from "../../shared/guards";
import { visibleText } from "../../shared/visible-text";
import { markHiddenChars, Shown } from "../graph/Shown";

/** A field's text as shown: bidi controls and invisible characters as ⟨U+202E⟩ placeholders (issue 39). */
const vis = (v: unknown): string => visibleText(str(v));

// Bidi controls and invisible characters are shown as placeholders (issue 39): the source is made visible
// before it is rendered, then the placeholders in the rendered text nodes are marked up.
export const Markdown = memo(function Markdown({ text, testId }: { text: string; testId?: string }) {
	const html = useMemo(() => renderMarkdown(visibleText(text)), [text]);
	const ref = useRef<HTMLDivElement>(null);
	useLayoutEffect(() => markHiddenChars(ref.current), [html]);
	return <div ref={ref} className="markdown" data-testid={testId} onClick={onContentLinkClick} dangerouslySetInnerHTML={{ __html: html }} />;
});

export function CodeBlock({ code, lang }: { code: string; lang?: string }) {
	// highlight.js escapes its input; the sanitizer runs anyway so no path inserts unchecked HTML.
	const html = useMemo(() => sanitizeHtml(highlightCode(visibleText(code), lang)), [code, lang]);
	const ref = useRef<HTMLElement>(null);
	useLayoutEffect(() => markHiddenChars(ref.current), [html]);
	return (
		<pre className="code">
			<code ref={ref} className="hljs" dangerouslySetInnerHTML={{ __html: html }} />
		</pre>
	);
}

function ImageBlockView({ block }: { block: ContentBlock }) {
	const b = block as Record<string, unknown>;
	const mime = str(b.mimeType);
	const data = str(b.data);
	const url = `data:${mime};base64,${data}`;
	if (!SAFE_IMAGE_URL.test(url)) return <div className="muted">[image: unsupported type {mime || "unknown"}]</div>;
	return <img className="entry-image" src={url} alt={`image (${mime})`} />;
}

export function Blocks({ content, plainText }: { content: unknown; plainText?: boolean }) {
	const blocks = blocksOf(content);
	if (blocks.length === 0) return <div className="muted">(no content)</div>;
	return (
		<>
			{blocks.map((block, i) => {
				const b = block as Record<string, unknown>;
				switch (block.type) {
					case "text":
						return plainText ? (
							<pre key={i} className="plain">
								<Shown text={vis(b.text)} />
							</pre>
						) : (
							<Markdown key={i} text={vis(b.text)} />
						);
					case "thinking":
						return (
							<details key={i} className="thinking" data-testid="inspector-thinking">
								<summary>Thinking{b.redacted === true ? " (redacted)" : ""}</summary>
								<Markdown text={vis(b.thinking)} />
							</details>
						);
					case "toolCall":
						return (
							<div key={i} className="tool-call" data-testid="inspector-tool-call">
								<div className="tool-call-head">
									<span className="badge">tool call</span> <strong>{vis(b.name) || "(unnamed)"}</strong> <span className="muted mono">{vis(b.id)}</span>
								</div>
								<CodeBlock code={prettyJson(b.arguments)} lang="json" />
							</div>
						);
					case "image":
						return <ImageBlockView key={i} block={block} />;
					default:
						return (
							<details key={i}>
								<summary>Block of type “{block.type}”</summary>
								<CodeBlock code={prettyJson(block)} lang="json" />
							</details>
						);
				}
			})}
		</>
	);
}

function num(v: unknown): number | null {
	return typeof v === "number" && Number.isFinite(v) ? v : null;
}

export function UsageView({ usage }: { usage: unknown }) {
	if (!isRecord(usage)) return null;
	const cost = isRecord(usage.cost) ? usage.cost : {};
	const parts: [string, number | null][] = [
		["input", num(usage.input)],
		["output", num(usage.output)],
		["cache read", num(usage.cacheRead)],
		["cache write", num(usage.cacheWrite)],
		["total", num(usage.totalTokens)],
	];
	const total = num(cost.total);
	return (
		<div className="usage" data-testid="inspector-usage">
			{parts
				.filter(([, v]) => v !== null)
				.map(([k, v]) => (
					<Field key={k} name={`${k} tokens`}>
						{v!.toLocaleString()}
					</Field>
				))}
			{total !== null && <Field name="cost">${total.toFixed(4)}</Field>}
		</div>
	);
}

function formatTime(v: unknown): string | null {
	if (typeof v === "number" && Number.isFinite(v)) return new Date(v).toLocaleString();
	if (typeof v === "string" && v) {
		const t = Date.parse(v);
		return Number.isNaN(t) ? v : new Date(t).toLocaleString();
	}
	return null;
}

function MessageBody({ message }: { message: Record<string, unknown> }) {
	const role = str(message.role);
	switch (role) {
		case "user":
			return <Blocks content={message.content} />;
		case "assistant":
			return (
				<>
					<Blocks content={message.content} />
					{message.stopReason !== undefined && message.stopReason !== "stop" && message.stopReason !== "toolUse" && (
						<div className="stop-reason">Stop reason: {vis(message.stopReason)}</div>
					)}
					{vis(message.errorMessage) && (
						<div className="error-text">
							<Shown text={vis(message.errorMessage)} />
						</div>
					)}
					<Field name="model">{[str(message.provider), str(message.model)].filter(Boolean).join(" / ") || "unknown"}</Field>
					<UsageView usage={message.usage} />
				</>
			);
		case "toolResult":
			return (
				<>
					<Field name="tool">
						{vis(message.toolName) || "(unknown)"}
						{message.isError === true ? " — error" : ""}
					</Field>
					<Field name="call id">
						<span className="mono">{vis(message.toolCallId)}</span>
					</Field>
					<Blocks content={message.content} plainText />
					{message.details !== undefined && (
						<details>
							<summary>Details</summary>
							<CodeBlock code={prettyJson(message.details)} lang="json" />
						</details>
					)}
				</>
			);
		case "bashExecution":
			return (
				<>
					<CodeBlock code={`$ ${vis(message.command)}`} lang="bash" />
					<pre className="plain">
						<Shown text={vis(message.output)} />
					</pre>
					<Field name="exit code">
						{num(message.exitCode) ?? "—"}
						{message.cancelled === true ? " (cancelled)" : ""}
					</Field>
				</>
			);
		case "system":
			return <SystemMessageView message={message} />;
		case "branchSummary":
		case "compactionSummary":
			return <Markdown text={vis(message.summary)} />;
		case "custom":
		case "hookMessage":
			return (
				<>
					<Field name="custom type">{vis(message.customType)}</Field>
					<Blocks content={message.content} />
				</>
			);
		default:
			return <CodeBlock code={prettyJson(message)} lang="json" />;
	}
}

/** The body of an entry of any type. */
export function EntryBody({ entry }: { entry: SessionEntry }) {
	const e = entry as Record<string, unknown>;
	switch (entry.type) {
		case "message":
			return isRecord(e.message) ? <MessageBody message={e.message} /> : <CodeBlock code={prettyJson(entry)} lang="json" />;
		case "compaction":
			return (
				<>
					<Field name="tokens before">{num(e.tokensBefore)?.toLocaleString() ?? "—"}</Field>
					<Field name="first kept entry">
						<span className="mono">{vis(e.firstKeptEntryId) || "—"}</span>
					</Field>
					<Markdown text={vis(e.summary)} />
				</>
			);
		case "branch_summary":
			return (
				<>
					<Field name="from">
						<span className="mono">{vis(e.fromId)}</span>
					</Field>
					<Markdown text={vis(e.summary)} />
				</>
			);
		case "custom_message":
			return (
				<>
					<Field name="custom type">
						{vis(e.customType)}
						{e.display === false ? " (hidden from the UI)" : ""}
					</Field>
					<Blocks content={e.content} />
				</>
			);
		case "model_change":
			return <Field name="model">{vis(e.model) || [str(e.provider), str(e.modelId)].filter(Boolean).join(" / ")}</Field>;
		case "thinking_level_change":
			return <Field name="thinking level">{vis(e.thinkingLevel) || "—"}</Field>;
		case "label":
			return (
				<>
					<Field name="target">
						<span className="mono">{vis(e.targetId)}</span>
					</Field>
					<Field name="label">{vis(e.label) || "(cleared)"}</Field>
				</>
			);
		case "session_info":
			return <Field name="title">{vis(e.name)}</Field>;
		case "custom":
			return (
				<>
					<Field name="custom type">{vis(e.customType)}</Field>
					<CodeBlock code={prettyJson(e.data)} lang="json" />
				</>
			);
		case "context_edit":
			return <ContextEditView entry={e} />;
		case "usage":
		case "model_usage":
			return <UsageLineView entry={e} />;
		default:
			if (isOmpRecordType(entry.type)) return <OmpRecordView entry={e} />;
			return <CodeBlock code={prettyJson(entry)} lang="json" />;
	}
}

export function entryTitle(entry: SessionEntry): string {
	const e = entry as Record<string, unknown>;
	if (entry.type === "message" && isRecord(e.message)) return str(e.message.role) || "message";
	return entry.type;
}

export function entryTimes(entry: SessionEntry): string | null {
	const e = entry as Record<string, unknown>;
	return formatTime(e.timestamp) ?? (isRecord(e.message) ? formatTime(e.message.timestamp) : null);
}
