// Runs the protocol's fixed vectors inside the page, with the same code the app bundles.
export { checkVectors } from '@tether/shared-protocol/testing';
