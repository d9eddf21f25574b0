package main

import (
	"bytes"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"gopkg.in/yaml.v3"
)

// k8sJob holds the batch/v1 Job fields scripts/k8s/sweep-job.yaml uses,
// named and typed as the Kubernetes API defines them; decoding with
// KnownFields rejects any other (a misspelt or misplaced field).
type k8sJob struct {
	APIVersion string     `yaml:"apiVersion"`
	Kind       string     `yaml:"kind"`
	Metadata   k8sMeta    `yaml:"metadata"`
	Spec       k8sJobSpec `yaml:"spec"`
}

type k8sMeta struct {
	Name   string            `yaml:"name"`
	Labels map[string]string `yaml:"labels"`
}

type k8sJobSpec struct {
	CompletionMode string `yaml:"completionMode"`
	Completions    *int32 `yaml:"completions"`
	Parallelism    *int32 `yaml:"parallelism"`
	BackoffLimit   *int32 `yaml:"backoffLimit"`
	Template       struct {
		Metadata k8sMeta `yaml:"metadata"`
		Spec     struct {
			RestartPolicy   string `yaml:"restartPolicy"`
			SecurityContext struct {
				RunAsNonRoot *bool  `yaml:"runAsNonRoot"`
				RunAsUser    *int64 `yaml:"runAsUser"`
				RunAsGroup   *int64 `yaml:"runAsGroup"`
				FSGroup      *int64 `yaml:"fsGroup"`
			} `yaml:"securityContext"`
			Containers []k8sContainer `yaml:"containers"`
			Volumes    []struct {
				Name                  string `yaml:"name"`
				PersistentVolumeClaim *struct {
					ClaimName string `yaml:"claimName"`
				} `yaml:"persistentVolumeClaim"`
				EmptyDir *struct{} `yaml:"emptyDir"`
			} `yaml:"volumes"`
		} `yaml:"spec"`
	} `yaml:"template"`
}

type k8sContainer struct {
	Name            string   `yaml:"name"`
	Image           string   `yaml:"image"`
	ImagePullPolicy string   `yaml:"imagePullPolicy"`
	Args            []string `yaml:"args"`
	Env             []struct {
		Name  string `yaml:"name"`
		Value string `yaml:"value"`
	} `yaml:"env"`
	Resources struct {
		Requests map[string]string `yaml:"requests"`
		Limits   map[string]string `yaml:"limits"`
	} `yaml:"resources"`
	SecurityContext struct {
		ReadOnlyRootFilesystem   *bool `yaml:"readOnlyRootFilesystem"`
		AllowPrivilegeEscalation *bool `yaml:"allowPrivilegeEscalation"`
	} `yaml:"securityContext"`
	VolumeMounts []struct {
		Name      string `yaml:"name"`
		MountPath string `yaml:"mountPath"`
	} `yaml:"volumeMounts"`
}

// flagValue is the value after --name in args.
func flagValue(args []string, name string) string {
	if i := slices.Index(args, "--"+name); i >= 0 && i+1 < len(args) {
		return args[i+1]
	}
	return ""
}

// TestKubernetesSweepJob checks the Indexed Job manifest against the
// batch/v1 fields it uses, its sweep arguments against manetlab's own
// flags (with --plan) and its shard count against completions, and the
// Dockerfile against what the manifest expects of the image. It was
// not run on a cluster.
func TestKubernetesSweepJob(t *testing.T) {
	b, err := os.ReadFile("../../scripts/k8s/sweep-job.yaml")
	if err != nil {
		t.Fatal(err)
	}
	dec := yaml.NewDecoder(bytes.NewReader(b))
	dec.KnownFields(true)
	var job k8sJob
	if err := dec.Decode(&job); err != nil {
		t.Fatalf("sweep-job.yaml: %v", err)
	}
	s := job.Spec
	if job.APIVersion != "batch/v1" || job.Kind != "Job" || job.Metadata.Name == "" || s.CompletionMode != "Indexed" {
		t.Fatalf("not an indexed batch/v1 Job: %+v", job)
	}
	if s.Completions == nil || *s.Completions < 1 || s.Parallelism == nil || *s.Parallelism > *s.Completions || s.BackoffLimit == nil {
		t.Fatalf("completions, parallelism or backoffLimit: %+v", s)
	}
	pod := s.Template.Spec
	if pod.RestartPolicy != "Never" && pod.RestartPolicy != "OnFailure" {
		t.Fatalf("restartPolicy %q: a Job's pods take Never or OnFailure", pod.RestartPolicy)
	}
	if len(pod.Containers) != 1 {
		t.Fatalf("%d containers", len(pod.Containers))
	}
	c := pod.Containers[0]
	quantity := regexp.MustCompile(`^[0-9]+(\.[0-9]+)?(m|Ki|Mi|Gi|Ti|k|M|G|T)?$`)
	for _, q := range []map[string]string{c.Resources.Requests, c.Resources.Limits} {
		for k, v := range q {
			if (k != "cpu" && k != "memory") || !quantity.MatchString(v) {
				t.Errorf("resources %s: %q", k, v)
			}
		}
	}
	volumes := map[string]bool{}
	for _, v := range pod.Volumes {
		if (v.PersistentVolumeClaim == nil) == (v.EmptyDir == nil) {
			t.Errorf("volume %s: want exactly one of persistentVolumeClaim and emptyDir", v.Name)
		}
		volumes[v.Name] = true
	}
	mounts := map[string]string{}
	for _, m := range c.VolumeMounts {
		if !volumes[m.Name] {
			t.Errorf("volumeMount %s: no such volume", m.Name)
		}
		mounts[m.MountPath] = m.Name
	}
	// The sweep: its shard count is the Job's completions, its index
	// JOB_COMPLETION_INDEX, its results and temporary files on volumes.
	args := c.Args
	if len(args) < 2 || args[0] != "sweep" {
		t.Fatalf("args %v", args)
	}
	for idx := int32(0); idx < *s.Completions; idx++ {
		i, n, err := parseShard(flagValue(args, "shard"), func(k string) string {
			if k == "JOB_COMPLETION_INDEX" {
				return strconv.Itoa(int(idx))
			}
			return ""
		})
		if err != nil || i != int(idx) || n != int(*s.Completions) {
			t.Fatalf("--shard %q in pod %d: slice %d/%d %v, want %d/%d", flagValue(args, "shard"), idx, i, n, err, idx, *s.Completions)
		}
	}
	if res := flagValue(args, "results"); mounts[filepath.Dir(res)] == "" {
		t.Errorf("--results %s is on no volume", res)
	}
	if mounts["/tmp"] == "" {
		t.Error("/tmp (the runs' traces) is on no volume: the image has none and a read-only root")
	}
	// The scenario is in the image (COPY configs /configs): plan the
	// sweep with the repository's copy, through manetlab's own flags.
	docker, err := os.ReadFile("../../Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	for _, line := range []string{"COPY configs /configs", `ENTRYPOINT ["/manetlab"]`, "CGO_ENABLED=0 go build", "FROM scratch",
		"USER " + strconv.Itoa(int(*pod.SecurityContext.RunAsUser))} {
		if !strings.Contains(string(docker), line) {
			t.Errorf("the Dockerfile has no %q", line)
		}
	}
	if !strings.HasPrefix(args[1], "/configs/") {
		t.Fatalf("scenario %s is not in the image's /configs", args[1])
	}
	local := append([]string{"sweep", "../../configs/" + strings.TrimPrefix(args[1], "/configs/")}, args[2:]...)
	plan, err := runCLI(t, append(local, "--plan")...)
	if err != nil {
		t.Fatalf("manetlab %v --plan: %v", local, err)
	}
	if n := strings.Count(plan, "\n") - 1; n < int(*s.Completions) {
		t.Errorf("%d runs for %d pods", n, *s.Completions)
	}
}
