package corpusgen

import (
	"fmt"
	"math/rand/v2"
)

func service(r *rand.Rand, a app) []byte {
	var w writer
	w.l(0, "apiVersion: v1")
	w.l(0, "kind: Service")
	w.meta(0, a, false)
	w.l(2, "annotations:")
	w.l(4, `service.beta.kubernetes.io/azure-load-balancer-internal: "true"`)
	w.l(4, "service.beta.kubernetes.io/azure-load-balancer-health-probe-request-path: /healthz/ready")
	w.l(0, "spec:")
	switch {
	case a.kind == "StatefulSet":
		w.l(2, "clusterIP: None")
	case chance(r, 0.2):
		w.l(2, "type: LoadBalancer")
		w.l(2, "loadBalancerSourceRanges: [10.0.0.0/8, 192.168.0.0/16]")
		if a.windows {
			w.l(2, "externalTrafficPolicy: Local")
		}
	default:
		w.l(2, "type: ClusterIP")
	}
	w.l(2, "selector:")
	w.f(4, "app.kubernetes.io/name: %s", a.name)
	w.l(2, "ports:")
	w.l(2, "- name: http")
	w.l(2, "  port: 80")
	w.f(2, "  targetPort: %d", a.port)
	w.l(2, "  protocol: TCP")
	return w.bytes()
}

func configMap(r *rand.Rand, a app) []byte {
	var w writer
	w.l(0, "apiVersion: v1")
	w.l(0, "kind: ConfigMap")
	w.meta(0, a, false)
	w.l(0, "data:")
	w.f(2, "LOG_LEVEL: %s", pick(r, []string{"info", "debug", "warn"}))
	w.f(2, "FEATURE_FLAGS: %q", "checkout-v2,fast-search")
	w.f(2, "MAX_CONNECTIONS: \"%d\"", 50*(1+r.IntN(8)))
	w.f(2, "CACHE_TTL: %ds", 30*(1+r.IntN(10)))
	w.f(2, "UPSTREAM_URL: https://%s.%s.svc.cluster.local:8443/v2", a.name, a.team)
	w.l(2, "app.json: |")
	w.block(4, fmt.Sprintf(`{
  "service": %q,
  "listen": ":%d",
  "upstreams": ["https://%s.internal:8443", "https://backup.%s.internal:8443"],
  "timeouts": {"read": "30s", "write": "30s", "idle": "2m"},
  "circuitBreaker": {"maxRequests": 100, "interval": "60s", "timeout": "30s", "failureRatio": 0.6},
  "tracing": {"exporter": "otlp", "endpoint": "otel-collector.observability:4317", "sampleRate": 0.05},
  "cors": {"allowedOrigins": ["https://www.example.com", "https://admin.example.com"], "allowCredentials": true},
  "retries": %d
}`, a.name, a.port, a.team, a.team, 1+r.IntN(4)))
	if a.windows {
		w.l(2, "startup.ps1: |")
		w.block(4, `$ErrorActionPreference = "Stop"
Write-Host "configuring IIS"
Import-Module WebAdministration
Set-ItemProperty "IIS:\AppPools\DefaultAppPool" -Name processModel.identityType -Value ApplicationPoolIdentity

& C:\ServiceMonitor.exe w3svc`)
	} else {
		w.l(2, "entrypoint.sh: |")
		w.block(4, `#!/bin/sh
set -eu
echo "starting $APP_NAME"
exec /app/server --config /etc/app/app.json`)
	}
	if a.windows {
		w.l(2, "web.config: |")
		w.block(4, webConfig)
	} else {
		w.l(2, "nginx.conf: |")
		w.block(4, nginxConf)
	}
	w.l(2, "motd: >")
	w.block(4, "Managed by the platform team.\nChanges here are overwritten by Argo CD;\nedit the repository instead.")
	return w.bytes()
}

func runtimeClass(name string) []byte {
	var w writer
	w.l(0, "apiVersion: node.k8s.io/v1")
	w.l(0, "kind: RuntimeClass")
	w.l(0, "metadata:")
	w.f(2, "name: %s", name)
	w.l(0, "handler: runhcs-wcow-process")
	w.l(0, "scheduling:")
	w.l(2, "nodeSelector:")
	w.l(4, "kubernetes.io/os: windows")
	w.l(4, "kubernetes.io/arch: amd64")
	w.l(4, "node.kubernetes.io/windows-build: '10.0.20348'")
	w.l(2, "tolerations:")
	w.l(2, "- effect: NoSchedule")
	w.l(2, "  key: os")
	w.l(2, "  operator: Equal")
	w.l(2, "  value: windows")
	return w.bytes()
}

const webConfig = `<?xml version="1.0" encoding="utf-8"?>
<configuration>
  <system.webServer>
    <handlers>
      <add name="aspNetCore" path="*" verb="*" modules="AspNetCoreModuleV2" resourceType="Unspecified" />
    </handlers>
    <aspNetCore processPath="dotnet" arguments=".\\App.dll" stdoutLogEnabled="false" hostingModel="inprocess" />
    <httpProtocol>
      <customHeaders>
        <remove name="X-Powered-By" />
        <add name="X-Frame-Options" value="DENY" />
      </customHeaders>
    </httpProtocol>
  </system.webServer>
</configuration>`

const nginxConf = `worker_processes auto;
events { worker_connections 1024; }
http {
  server_tokens off;
  access_log /dev/stdout;
  server {
    listen 8080;
    location /healthz/ready { return 200 "ok"; }
    location / {
      proxy_pass http://127.0.0.1:9000;
      proxy_set_header Host $host;
      proxy_set_header X-Forwarded-For $proxy_add_x_forwarded_for;
      proxy_read_timeout 30s;
    }
  }
}`
