/*
 * host-git/: git that Cairn runs on the host against the person's repository (not the checkpoints'
 * own store), kept from running any program the repository's config or files name. A leaf.
 */
export { type HostGit, type OpenedHostGit, openHostGit } from "./host-git.js";
export { findRepository, type RepositoryLayout } from "./repository-layout.js";
