# Create GKE cluster
gcloud container clusters create hybrid-cluster \
  --zone us-central1-a \
  --num-nodes 2 \
  --enable-ip-alias

# Add Windows node pool
gcloud container node-pools create windows-pool \
  --cluster hybrid-cluster \
  --zone us-central1-a \
  --image-type WINDOWS_LTSC_CONTAINERD \
  --machine-type n1-standard-4 \
  --num-nodes 2 \
  --metadata disable-legacy-endpoints=true
