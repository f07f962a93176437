/** How to measure a run again: engine, model, hardware, environment, launch and benchmark commands, in one block. */
import { CopyTextButton } from "@/components/ui/CopyTextButton";
import { Section } from "@/components/ui/primitives";
import type { Reproduction } from "@/lib/runs/reproduce";

export function ReproducePanel({ reproduction }: { reproduction: Reproduction }) {
  return (
    <Section
      title="Reproduce"
      id="reproduce"
      aside={<CopyTextButton text={reproduction.text} label="Copy all" testId="reproduce-copy" />}
    >
      <p className="mb-2 max-w-3xl text-sm text-zinc-600 dark:text-zinc-400">
        Everything this run records about how it was measured, as one block for a shell: what is not recorded says so.
        {reproduction.benchmarkCommand
          ? null
          : " Runs measured with servebench bench keep the command that measures them again."}
      </p>
      <pre
        className="overflow-x-auto whitespace-pre-wrap break-all rounded-md bg-zinc-100 p-3 font-mono text-xs dark:bg-zinc-900"
        data-testid="reproduce-block"
      >
        {reproduction.text}
      </pre>
    </Section>
  );
}
