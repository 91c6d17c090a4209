/**
 * ops/prometheus.yml must scrape every app process of docker-compose.yml on the metrics port that process is given,
 * and load the alert rules that docs/operators/operations.md describes.
 */
import { expect } from 'chai';
import fs from 'node:fs';
import path from 'node:path';
import { parse } from 'yaml';

const ROOT = path.resolve(__dirname, '..', '..');
const read = (file: string) => fs.readFileSync(path.join(ROOT, file), 'utf8');

interface Service {
  command?: string[];
  environment?: Record<string, string>;
  volumes?: string[];
}
const compose = parse(read('docker-compose.yml'), { merge: true }) as { services: Record<string, Service> };
const prometheus = parse(read('ops/prometheus.yml')) as {
  rule_files: string[];
  scrape_configs: { static_configs: { targets: string[] }[] }[];
};
const alerts = parse(read('ops/alerts.yml')) as { groups: { rules: { alert: string; expr: string }[] }[] };

describe('Prometheus in docker-compose', () => {
  it('scrapes every API and worker service on its METRICS_PORT', () => {
    const appServices = Object.entries(compose.services).filter(([name]) => /^(api|worker)-/.test(name));
    expect(appServices.length).to.be.greaterThan(4);
    const targets = prometheus.scrape_configs.flatMap((job) => job.static_configs.flatMap((c) => c.targets));
    const expected = appServices.map(([name, service]) => `${name}:${service.environment?.METRICS_PORT}`);
    expect(targets).to.have.members(expected);
  });

  it('mounts the committed config and alert rules into the prometheus service', () => {
    const volumes = compose.services.prometheus?.volumes ?? [];
    expect(volumes).to.include('./ops/prometheus.yml:/etc/prometheus/prometheus.yml:ro');
    expect(volumes).to.include('./ops/alerts.yml:/etc/prometheus/alerts.yml:ro');
    expect(prometheus.rule_files).to.deep.equal(['/etc/prometheus/alerts.yml']);
  });

  it('has each alert of the rules file documented in docs/operators/operations.md', () => {
    const doc = read('docs/operators/operations.md');
    for (const { alert } of alerts.groups.flatMap((g) => g.rules)) expect(doc, alert).to.contain(`\`${alert}\``);
  });
});
