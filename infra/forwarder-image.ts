// The forwarder's container image built from the repository (functions/forwarder/Dockerfile) as a CDK container asset:
// `cdk synth` only stages its build context (no Docker needed); `cdk deploy` builds it with the local Docker (or
// Finch, CDK_DOCKER) and pushes it to the CDK bootstrap's ECR repository, and ChartValues carries its repository and
// tag. Behind the setting forwarderImage=true, so synth and deploy without Docker stay possible.
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { IgnoreMode } from 'aws-cdk-lib';
import * as ecrAssets from 'aws-cdk-lib/aws-ecr-assets';
import type { Construct } from 'constructs';

const repoRoot = join(dirname(fileURLToPath(import.meta.url)), '..');

/** The platforms the image can be built for (the management cluster's nodes). */
export const forwarderImagePlatforms = ['linux/amd64', 'linux/arm64'] as const;
export type ForwarderImagePlatform = (typeof forwarderImagePlatforms)[number];

/**
 * What the Dockerfile copies, and nothing else, as the build context: the asset's hash (its tag) then changes only
 * when the forwarder's inputs do. Docker ignore-file semantics.
 */
export const forwarderImageContext = ['*', '!package.json', '!package-lock.json', '!shared', '!functions'] as const;

/**
 * The forwarder's image asset (construct id `ForwarderImage`).
 *
 * @example
 * const image = createForwarderImage(stack, 'linux/arm64');
 * ({ repository: image.repository.repositoryUri, tag: image.imageTag });
 */
export function createForwarderImage(
  scope: Construct,
  platform: ForwarderImagePlatform = 'linux/amd64',
): ecrAssets.DockerImageAsset {
  return new ecrAssets.DockerImageAsset(scope, 'ForwarderImage', {
    directory: repoRoot,
    file: 'functions/forwarder/Dockerfile',
    platform: platform === 'linux/arm64' ? ecrAssets.Platform.LINUX_ARM64 : ecrAssets.Platform.LINUX_AMD64,
    ignoreMode: IgnoreMode.DOCKER,
    exclude: [...forwarderImageContext],
  });
}
