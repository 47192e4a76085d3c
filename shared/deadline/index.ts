export {
  callWithDeadline,
  dependencies,
  DependencyTimeoutError,
  findDependencyTimeout,
  lastDependencyTimeout,
  remainingBeforeDeadlineMs,
  runWithDeadline,
} from './call-with-deadline.ts';
export type { Dependency } from './call-with-deadline.ts';
