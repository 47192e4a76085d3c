// The ordered phases of a provider pass: a failing phase sets its condition and stops the pass.
import { cachePhase } from '#shared/providers/phases/cache-phase.ts';
import { contractPhase } from '#shared/providers/phases/contract-phase.ts';
import { deleteComponentsPhase, deleteGuardPhase } from '#shared/providers/phases/delete-phase.ts';
import { fetchPhase } from '#shared/providers/phases/fetch-phase.ts';
import { healthPhase } from '#shared/providers/phases/health-phase.ts';
import { installPhase } from '#shared/providers/phases/install-phase.ts';
import { loadPhase } from '#shared/providers/phases/load-phase.ts';
import { pausePhase } from '#shared/providers/phases/pause-phase.ts';
import { preflightPhase } from '#shared/providers/phases/preflight-phase.ts';
import type { Phase } from '#shared/providers/phases/provider-pass.ts';
import { unpausePhase } from '#shared/providers/phases/unpause-phase.ts';

/** preflight → cache → fetch → load → pause → contract → install/upgrade → unpause → health. */
export const reconcilePhases: readonly Phase[] = [
  preflightPhase,
  cachePhase,
  fetchPhase,
  loadPhase,
  pausePhase,
  contractPhase,
  installPhase,
  unpausePhase,
  healthPhase,
];

/** delete guard → delete components (then the orchestrator removes the finalizer). */
export const deletePhases: readonly Phase[] = [deleteGuardPhase, deleteComponentsPhase];
