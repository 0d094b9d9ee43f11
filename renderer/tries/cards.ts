// The tries' streaming cards in the graph: while a try runs, a card under the entry it started from shows its
// answer and tool calls as pi streams them (the same cards a live pi's turn gets, renderer/graph/streaming.tsx).
// A try's card goes when the try ends: its result is in the Tries panel, its entries in its own session file.

import { useMemo } from "react";
import { useStore } from "zustand";
import type { Skeleton } from "../../shared/skeleton";
import type { StreamCard } from "../graph/streaming";
import { indexOfId } from "../store/selectors";
import { tries } from "./store";

const NONE: StreamCard[] = [];

export function useTriesCards(sessionPath: string | null, skeleton: Skeleton | null): StreamCard[] {
	const run = useStore(tries, (s) => s.run);
	const answers = useStore(tries, (s) => s.answers);
	const tools = useStore(tries, (s) => s.tools);
	return useMemo(() => {
		if (!run || !skeleton || sessionPath === null || run.source !== sessionPath) return NONE;
		const parentIndex = indexOfId(skeleton, run.entryId);
		const running = run.tries.filter((t) => t.status === "starting" || t.status === "running");
		if (running.length === 0) return NONE;
		return running.map((t) => ({
			key: `try:${run.runId}:${t.index}`,
			parentIndex,
			text: `Try ${t.index + 1}: ${answers[t.index] ?? ""}`,
			tools: tools[t.index] ?? [],
			thinking: false,
			done: false,
		}));
	}, [run, answers, tools, skeleton, sessionPath]);
}
