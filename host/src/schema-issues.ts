// Lives in shared-protocol beside the typed dispatch that reports with it.
export { describeIssues } from '@tether/shared-protocol';
