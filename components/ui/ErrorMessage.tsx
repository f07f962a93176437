import type { ApiErrorView } from "./api-error";

export function ErrorMessage({ error }: { error: ApiErrorView }) {
  return (
    <div
      role="alert"
      className="rounded-md border border-red-300 bg-red-50 p-3 text-sm text-red-800 dark:border-red-800 dark:bg-red-950/50 dark:text-red-300"
      data-testid="api-error"
    >
      <p className="font-medium">{error.message}</p>
      {error.issues.length > 0 ? (
        <ul className="mt-2 list-disc space-y-0.5 pl-5">
          {error.issues.map((issue, index) => (
            <li key={`${issue.path}-${index}`}>
              <code className="font-mono text-xs">{issue.path || "(document)"}</code>: {issue.message}
            </li>
          ))}
        </ul>
      ) : null}
    </div>
  );
}
