// Filter buttons: the same registry commands as pi's Ctrl+D/T/U/L/A keys; their text, tooltip and key
// come from the command definitions (shared/commands.ts).

import { FILTER_MODES } from "../../shared/api";
import { FILTERS } from "../../shared/commands";
import { commandShort, commandTitle, makeContext } from "../commands/registry";
import { useServices } from "../commands/services";
import { useApp } from "../store";

export function FilterBar() {
	const { registry, deps } = useServices();
	const filter = useApp((s) => s.filter);
	const ctx = makeContext(deps, { source: "button" });
	return (
		<div className="filter-bar" role="group" aria-label="Filter">
			{FILTER_MODES.map((mode) => {
				const cmd = registry.get(FILTERS[mode].command);
				if (!cmd) return null;
				return (
					<button
						key={mode}
						type="button"
						data-testid={`filter-${mode}`}
						aria-pressed={filter === mode}
						className={filter === mode ? "active" : ""}
						title={commandTitle(cmd, ctx)}
						// A click sets the mode (the command from a button; a key toggles it back to default, as in pi).
						onClick={() => void registry.run(cmd.id, makeContext(deps, { source: "button" }))}
					>
						{commandShort(cmd, ctx)}
					</button>
				);
			})}
		</div>
	);
}
