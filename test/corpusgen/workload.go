package corpusgen

import (
	"fmt"
	"math/rand/v2"
)

func workload(r *rand.Rand, a app) []byte {
	var w writer
	if chance(r, 0.3) {
		w.f(0, "# %s: %s workload of the %s team", a.name, osName(a), a.team)
	}
	api := "apps/v1"
	w.f(0, "apiVersion: %s", api)
	w.f(0, "kind: %s", a.kind)
	w.meta(0, a, true)
	w.l(0, "spec:")
	switch {
	case a.kind == "DaemonSet":
	case a.mistake == quotedReplicas:
		w.f(2, "replicas: \"%d\"", a.replicas)
	default:
		w.f(2, "replicas: %d", a.replicas)
	}
	if a.kind == "StatefulSet" {
		w.f(2, "serviceName: %s", a.name)
		w.l(2, "podManagementPolicy: Parallel")
	}
	if a.kind == "Deployment" {
		w.l(2, "revisionHistoryLimit: 5")
		w.l(2, "strategy:")
		w.l(4, "type: RollingUpdate")
		w.l(4, "rollingUpdate: {maxSurge: 25%, maxUnavailable: 0}")
	}
	w.l(2, "selector:")
	w.l(4, "matchLabels:")
	w.f(6, "app.kubernetes.io/name: %s", a.name)
	w.l(2, "template:")
	w.l(4, "metadata:")
	w.l(6, "labels:")
	w.labels(8, a)
	w.l(6, "annotations:")
	w.f(8, "checksum/config: %016x%016x%016x%016x", r.Uint64(), r.Uint64(), r.Uint64(), r.Uint64())
	w.l(8, `prometheus.io/scrape: "true"`)
	w.f(8, `prometheus.io/port: "%d"`, a.port)
	w.l(8, "prometheus.io/path: /metrics")
	w.l(8, `cluster-autoscaler.kubernetes.io/safe-to-evict: "true"`)
	w.f(8, "kubectl.kubernetes.io/default-container: %s", a.name)
	w.f(8, "vault.hashicorp.com/agent-inject-secret-db: database/creds/%s", a.name)
	w.f(8, "vault.hashicorp.com/role: %s-%s", a.team, a.name)
	w.l(4, "spec:")
	podSpec(&w, r, a)
	if a.kind == "StatefulSet" {
		w.l(2, "volumeClaimTemplates:")
		w.l(2, "- metadata:")
		w.l(6, "name: data")
		w.l(4, "spec:")
		w.l(6, "accessModes: [ReadWriteOnce]")
		w.l(6, "storageClassName: managed-csi")
		w.l(6, "resources:")
		w.f(8, "requests: {storage: %dGi}", 8<<r.IntN(4))
	}
	return w.bytes()
}

func osName(a app) string {
	if a.windows {
		return "Windows"
	}
	return "Linux"
}

// podSpec writes the pod template's spec at indent 6.
func podSpec(w *writer, r *rand.Rand, a app) {
	const in = 6
	w.f(in, "serviceAccountName: %s", a.name)
	w.l(in, "terminationGracePeriodSeconds: 30")
	if a.rc != "" {
		w.f(in, "runtimeClassName: %s", a.rc)
	}
	if a.windows {
		w.l(in, "os: {name: windows}")
		if a.mistake == runAsUser {
			w.l(in, "securityContext:")
			w.l(in+2, "runAsUser: 1000")
			w.l(in+2, "runAsNonRoot: true")
		} else {
			w.l(in, "securityContext:")
			w.l(in+2, "windowsOptions:")
			w.l(in+4, "runAsUserName: ContainerUser")
		}
	} else {
		w.l(in, "securityContext:")
		w.l(in+2, "runAsNonRoot: true")
		w.l(in+2, "fsGroup: 2000")
		w.l(in+2, "seccompProfile: {type: RuntimeDefault}")
	}
	scheduling(w, r, a)
	if chance(r, 0.3) {
		w.l(in, "initContainers:")
		w.l(in, "- name: migrate")
		w.f(in, "  image: %s", a.image(r))
		w.l(in, "  command:")
		if a.windows {
			w.l(in, `  - powershell.exe`)
			w.l(in, `  - -Command`)
			w.l(in, `  - "C:\\app\\migrate.exe --wait-for-db --timeout 120"`)
		} else {
			w.l(in, "  - /app/migrate")
			w.l(in, "  - --wait-for-db")
			w.l(in, "  - --timeout=120s")
		}
		w.l(in, "  resources:")
		w.l(in, "    requests: {cpu: 50m, memory: 64Mi}")
	}
	w.l(in, "containers:")
	for i := range a.containers {
		container(w, r, a, i)
	}
	volumes(w, a)
}

func scheduling(w *writer, r *rand.Rand, a app) {
	const in = 6
	pinned := !(a.mistake == noSelector || a.mistake == linuxUnpinned) && a.rc == ""
	if pinned {
		w.l(in, "nodeSelector:")
		w.f(in+2, "kubernetes.io/os: %s", map[bool]string{true: "windows", false: "linux"}[a.windows])
		if a.windows && chance(r, 0.5) {
			w.l(in+2, "node.kubernetes.io/windows-build: '10.0.20348'")
		}
	}
	if a.windows && a.rc == "" && a.mistake != noToleration {
		value := "windows"
		if a.mistake == tolerationCase {
			value = "Windows"
		}
		w.l(in, "tolerations:")
		w.l(in, "- key: os")
		w.l(in, "  operator: Equal")
		w.f(in, "  value: %s", value)
		w.l(in, "  effect: NoSchedule")
	}
	if a.kind != "DaemonSet" && chance(r, 0.5) {
		w.l(in, "topologySpreadConstraints:")
		w.l(in, "- maxSkew: 1")
		w.l(in, "  topologyKey: topology.kubernetes.io/zone")
		w.l(in, "  whenUnsatisfiable: ScheduleAnyway")
		w.l(in, "  labelSelector:")
		w.f(in, "    matchLabels: {app.kubernetes.io/name: %s}", a.name)
	}
	if a.kind != "DaemonSet" && chance(r, 0.6) {
		w.l(in, "affinity:")
		w.l(in+2, "podAntiAffinity:")
		w.l(in+4, "preferredDuringSchedulingIgnoredDuringExecution:")
		w.l(in+4, "- weight: 100")
		w.l(in+4, "  podAffinityTerm:")
		w.l(in+4, "    topologyKey: kubernetes.io/hostname")
		w.l(in+4, "    labelSelector:")
		w.l(in+4, "      matchLabels:")
		w.f(in+4, "        app.kubernetes.io/name: %s", a.name)
	}
}

func container(w *writer, r *rand.Rand, a app, i int) {
	const in = 6
	name, image, port := a.name, a.image(r), a.port
	if i > 0 {
		name, port = "log-forwarder", 2020
		image = map[bool]string{true: "fluent/fluent-bit:3.1.9-windows-2022", false: "fluent/fluent-bit:3.1.9"}[a.windows]
	}
	w.f(in, "- name: %s", name)
	w.f(in, "  image: %s", image)
	w.l(in, "  imagePullPolicy: IfNotPresent")
	if i == 0 {
		w.l(in, "  args:")
		w.f(in, "  - --listen=:%d", port)
		w.l(in, "  - --metrics-listen=:9102")
		w.f(in, "  - --config=%s", map[bool]string{true: `C:\app\config\app.json`, false: "/etc/app/app.json"}[a.windows])
		w.l(in, "  - --shutdown-grace=25s")
	}
	w.l(in, "  ports:")
	w.f(in, "  - name: http")
	w.f(in, "    containerPort: %d", port)
	w.l(in, "    protocol: TCP")
	w.l(in, "  env:")
	for j := range 6 + r.IntN(10) {
		w.f(in, "  - name: %s_SETTING_%d", upper(a.team), j)
		w.f(in, "    value: %q", fmt.Sprintf("value-%d-%x", j, r.Uint32()))
	}
	w.l(in, "  - name: DB_PASSWORD")
	w.l(in, "    valueFrom:")
	w.f(in, "      secretKeyRef: {name: %s-db, key: password}", a.name)
	w.l(in, "  - name: POD_NAME")
	w.l(in, "    valueFrom:")
	w.l(in, "      fieldRef:")
	w.l(in, "        fieldPath: metadata.name")
	mem := 128 << r.IntN(4)
	if a.windows {
		mem *= 4
	}
	w.l(in, "  resources:")
	w.f(in, "    requests: {cpu: %dm, memory: %dMi}", 100*(1+r.IntN(5)), mem)
	w.f(in, "    limits: {cpu: \"%d\", memory: %dMi}", 1+r.IntN(2), 2*mem)
	if i == 0 {
		probes(w, a)
		w.l(in, "  lifecycle:")
		w.l(in, "    preStop:")
		w.l(in, "      exec:")
		if a.windows {
			w.l(in, `        command: ["powershell.exe", "-Command", "Start-Sleep -Seconds 15"]`)
		} else {
			w.l(in, `        command: ["/bin/sh", "-c", "sleep 15"]`)
		}
	}
	if a.mistake == privileged && i == 0 {
		w.l(in, "  securityContext:")
		w.l(in, "    privileged: true")
	} else if !a.windows {
		w.l(in, "  securityContext:")
		w.l(in, "    allowPrivilegeEscalation: false")
		w.l(in, "    readOnlyRootFilesystem: true")
		w.l(in, "    capabilities: {drop: [ALL]}")
	}
	w.l(in, "  volumeMounts:")
	dir := map[bool]string{true: `C:\app\config`, false: "/etc/app"}[a.windows]
	w.f(in, "  - name: config")
	w.f(in, "    mountPath: %q", dir)
	w.l(in, "    readOnly: true")
	w.l(in, "  - name: tls")
	w.f(in, "    mountPath: %q", map[bool]string{true: `C:\app\tls`, false: "/etc/tls"}[a.windows])
	w.l(in, "    readOnly: true")
	w.l(in, "  - name: scratch")
	w.f(in, "    mountPath: %s", map[bool]string{true: `C:\temp`, false: "/tmp"}[a.windows])
	if a.kind == "StatefulSet" {
		w.l(in, "  - name: data")
		w.f(in, "    mountPath: %s", map[bool]string{true: `C:\data`, false: "/var/lib/app"}[a.windows])
	}
}

func probes(w *writer, a app) {
	const in = 6
	w.l(in, "  readinessProbe:")
	w.l(in, "    httpGet:")
	w.l(in, "      path: /healthz/ready")
	w.f(in, "      port: %d", a.port)
	w.l(in, "    periodSeconds: 10")
	w.l(in, "  livenessProbe:")
	w.l(in, "    httpGet:")
	w.l(in, "      path: /healthz/live")
	w.l(in, "      port: http")
	w.f(in, "    initialDelaySeconds: %d", map[bool]int{true: 60, false: 10}[a.windows])
	w.l(in, "    periodSeconds: 20")
	w.l(in, "    failureThreshold: 3")
}

func volumes(w *writer, a app) {
	const in = 6
	w.l(in, "volumes:")
	w.l(in, "- name: config")
	w.l(in, "  configMap:")
	w.f(in, "    name: %s", a.name)
	w.l(in, "    defaultMode: 0444")
	w.l(in, "- name: tls")
	w.l(in, "  secret:")
	w.f(in, "    secretName: %s-tls", a.name)
	w.l(in, "    optional: false")
	w.l(in, "- name: scratch")
	w.l(in, "  emptyDir: {sizeLimit: 1Gi}")
	if a.kind == "DaemonSet" {
		w.l(in, "- name: host-logs")
		w.l(in, "  hostPath:")
		w.f(in, "    path: %s", map[bool]string{true: `C:\var\log`, false: "/var/log"}[a.windows])
		w.l(in, "    type: Directory")
	}
}

func upper(s string) string {
	b := []byte(s)
	for i, c := range b {
		if c >= 'a' && c <= 'z' {
			b[i] = c - 'a' + 'A'
		}
	}
	return string(b)
}
